#include "formats/llama2c/llama2c_header.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "formats/llama2c/llama2c_layout.h"

namespace llama {

namespace {

template <typename T>
T readAt(std::span<const std::byte> bytes, size_t offset) {
    T v;
    std::memcpy(&v, bytes.data() + offset, sizeof v);
    return v;
}

// The seven int32 fields every version has, from `offset` on.
void readFields(Llama2cHeader& h, std::span<const std::byte> bytes, size_t offset) {
    int32_t* fields[] = {&h.dim, &h.hiddenDim, &h.nLayers, &h.nHeads, &h.nKvHeads, &h.vocabSize, &h.seqLen};
    for (int32_t* f : fields) {
        *f = readAt<int32_t>(bytes, offset);
        offset += 4;
    }
}

}  // namespace

ModelArgs Llama2cHeader::args() const {
    ModelArgs a;
    a.dim = dim;
    a.n_layers = nLayers;
    a.n_heads = nHeads;
    a.n_kv_heads = nKvHeads;
    a.vocab_size = vocabSize;
    a.ffn_hidden_dim = hiddenDim;
    a.max_seq_len = seqLen;
    a.norm_eps = 1e-5;  // run.c's rmsnorm
    a.rope_theta = 10000.0;
    return a;
}

std::string Llama2cHeader::formatName() const {
    if (version == 0) return "llama2.c legacy checkpoint (run.c)";
    if (version == 1) return "llama2.c version 1 checkpoint (float32)";
    return fmt::format("llama2.c version 2 checkpoint (int8, groups of {}, runq.c)", groupSize);
}

Llama2cHeader readLlama2cHeader(std::span<const std::byte> bytes, const std::string& path) {
    auto fail = [&](const std::string& what) -> void { throw std::runtime_error(path + ": " + what); };
    Llama2cHeader h;
    const bool versioned = bytes.size() >= 4 && readAt<uint32_t>(bytes, 0) == kLlama2cMagic;
    if (versioned) {
        if (bytes.size() < kLlama2cHeaderBytes)
            fail(fmt::format("{} bytes: a versioned llama2.c header (magic \"ak42\") is {} bytes", bytes.size(), kLlama2cHeaderBytes));
        h.version = readAt<int32_t>(bytes, 4);
        if (h.version != 1 && h.version != 2)
            fail(fmt::format("version {} at offset 4: llama2.c's export.py writes versions 1 (float32) and 2 (int8)", h.version));
        readFields(h, bytes, 8);
        const uint8_t shared = uint8_t(bytes[36]);
        if (shared > 1) fail(fmt::format("shared-classifier byte at offset 36 is {}: expected 0 or 1", shared));
        h.sharedClassifier = shared == 1;
        h.dataOffset = kLlama2cHeaderBytes;
        if (h.version == 2) {
            h.groupSize = readAt<int32_t>(bytes, 37);
            if (h.groupSize <= 0 || h.dim <= 0 || h.dim % h.groupSize != 0)
                fail(fmt::format("group size {} at offset 37 must be positive and divide dim ({})", h.groupSize, h.dim));
        }
    } else {
        if (bytes.size() < kLlama2cLegacyHeaderBytes)
            fail(fmt::format("{} bytes: a llama2.c checkpoint starts with a {}-byte header (seven int32: dim, hidden_dim, n_layers, "
                             "n_heads, n_kv_heads, vocab_size, seq_len)",
                             bytes.size(), kLlama2cLegacyHeaderBytes));
        readFields(h, bytes, 0);
        // A negative vocab_size is llama2.c's sign for a classifier stored after the weights.
        h.sharedClassifier = h.vocabSize > 0;
        if (h.vocabSize != INT32_MIN) h.vocabSize = std::abs(h.vocabSize);
        h.dataOffset = kLlama2cLegacyHeaderBytes;
    }
    try {
        h.args().validate(path, ModelArgs::VocabSize::Stated,
                          {.ffn = "hidden_dim", .max_seq_len = "seq_len"});
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(std::string(e.what()) + (versioned ? "" : " (read as a legacy llama2.c header: seven int32 at offset 0)"));
    }
    const int64_t expected = llama2cFileBytes(h);
    if (int64_t(bytes.size()) != expected)
        fail(fmt::format("the header (dim {}, hidden_dim {}, n_layers {}, n_heads {}, n_kv_heads {}, vocab_size {}, seq_len {}{}) "
                         "describes a file of {} bytes, but it has {} bytes",
                         h.dim, h.hiddenDim, h.nLayers, h.nHeads, h.nKvHeads, h.vocabSize, h.seqLen,
                         h.sharedClassifier ? ", shared classifier" : ", own classifier", expected, bytes.size()));
    return h;
}

bool isLlama2cFile(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return false;
    if (fs::path(path).extension() == ".bin") return true;
    std::byte head[kLlama2cLegacyHeaderBytes] = {};
    std::ifstream in(path, std::ios::binary);
    in.read(reinterpret_cast<char*>(head), sizeof head);
    if (in.gcount() >= 4 && readAt<uint32_t>(head, 0) == kLlama2cMagic) return true;
    if (in.gcount() < std::streamsize(sizeof head)) return false;
    // Legacy: no magic, so only a header whose sizes add up to the file's length counts.
    Llama2cHeader h;
    readFields(h, head, 0);
    h.sharedClassifier = h.vocabSize > 0;
    if (h.vocabSize != INT32_MIN) h.vocabSize = std::abs(h.vocabSize);
    h.dataOffset = kLlama2cLegacyHeaderBytes;
    try {
        h.args().validate(path);
    } catch (const std::invalid_argument&) {
        return false;
    }
    return llama2cFileBytes(h) == int64_t(fs::file_size(path, ec));
}

}  // namespace llama
