#include "formats/llama2c/llama2c_export.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "io/atomic_output.h"
#include "formats/llama2c/llama2c_header.h"
#include "formats/llama2c/llama2c_layout.h"
#include "formats/llama2c/llama2c_tokenizer.h"
#include "tensor/quant_blocks.h"

namespace llama {

namespace {

void refuseWhatRunCCannotCompute(const ModelArgs& a) {
    auto refuse = [](const std::string& what) {
        throw std::invalid_argument("llama2.c's run.c cannot run this model as it is: " + what);
    };
    if (a.rope_theta != 10000.0) refuse(fmt::format("its rope_theta is {}, and run.c computes RoPE with base 10000", a.rope_theta));
    if (a.use_scaled_rope) refuse("it uses Llama 3.1's RoPE scaling, which run.c does not have");
    if (std::abs(a.norm_eps - 1e-5) > 1e-12) refuse(fmt::format("its norm_eps is {}, and run.c's RMSNorm adds 1e-5", a.norm_eps));
}

// export.py's freqs_cos/freqs_sin rows for positions [0, seqLen): angle t / 10000^(2i/headDim),
// computed in double and rounded to float32 (export.py's torch float32 agrees to an ulp; run.c
// never reads the tables).
std::vector<float> ropeTable(const Llama2cHeader& h, bool sine) {
    const int64_t headDim = h.dim / h.nHeads, half = headDim / 2;
    std::vector<float> out;
    out.reserve(size_t(h.seqLen * half));
    for (int64_t t = 0; t < h.seqLen; ++t)
        for (int64_t i = 0; i < half; ++i) {
            const double angle = double(t) / std::pow(10000.0, double(2 * i) / double(headDim));
            out.push_back(float(sine ? std::sin(angle) : std::cos(angle)));
        }
    return out;
}

}  // namespace

std::string llama2cTokenizerPathFor(const std::string& outPath) {
    return (std::filesystem::path(outPath).parent_path() / "tokenizer.bin").string();
}

void exportLlama2c(const Model& model, const std::string& outPath, int version) {
    if (version != 0 && version != 1) throw std::invalid_argument(fmt::format("llama2.c export: version {} (0 or 1 are written)", version));
    const ModelArgs& a = model.args;
    refuseWhatRunCCannotCompute(a);
    std::map<std::string, const Tensor*> byName;
    for (const auto& [name, t] : model.tensors) byName[name] = &t;
    auto find = [&](const std::string& name) -> const Tensor& {
        auto it = byName.find(name);
        if (it == byName.end()) throw std::runtime_error(fmt::format("{}: no tensor '{}' to write", model.path, name));
        return *it->second;
    };
    Llama2cHeader h;
    h.version = version;
    h.dim = a.dim;
    h.hiddenDim = a.ffnHiddenDim();
    h.nLayers = a.n_layers;
    h.nHeads = a.n_heads;
    h.nKvHeads = a.n_kv_heads;
    h.vocabSize = a.vocab_size;
    h.seqLen = a.max_seq_len;
    // Shared when output.weight is the embedding table itself (a tied model) or holds the same values.
    const Tensor& embeddings = find("tok_embeddings.weight");
    const Tensor& output = find("output.weight");
    h.sharedClassifier = output.rawData() == embeddings.rawData() ||
                         (output.dtype() == embeddings.dtype() && output.byteSize() == embeddings.byteSize() &&
                          std::memcmp(output.rawData(), embeddings.rawData(), output.byteSize()) == 0);
    h.dataOffset = version == 0 ? kLlama2cLegacyHeaderBytes : kLlama2cHeaderBytes;
    // The tokenizer first: a vocabulary run.c cannot use is refused before any file is written.
    writeLlama2cTokenizer(*model.tokenizer, llama2cTokenizerPathFor(outPath));

    AtomicOutputFile file(outPath);
    std::ofstream& out = file.stream();
    auto put = [&](const void* p, size_t n) { out.write(static_cast<const char*>(p), std::streamsize(n)); };
    if (version == 0) {
        const int32_t fields[] = {h.dim, h.hiddenDim, h.nLayers, h.nHeads, h.nKvHeads, h.sharedClassifier ? h.vocabSize : -h.vocabSize,
                                  h.seqLen};
        put(fields, sizeof fields);
    } else {
        char header[kLlama2cHeaderBytes] = {};
        const int32_t fields[] = {int32_t(kLlama2cMagic), 1, h.dim, h.hiddenDim, h.nLayers, h.nHeads, h.nKvHeads, h.vocabSize, h.seqLen};
        std::memcpy(header, fields, sizeof fields);
        header[sizeof fields] = char(h.sharedClassifier ? 1 : 0);
        put(header, sizeof header);
    }
    std::vector<float> values;
    for (const Llama2cArray& array : llama2cLayout(h)) {
        if (array.kind == Llama2cArray::Kind::RopeTable) {
            values = ropeTable(h, array.name == "freqs_sin");
        } else {
            const Tensor& t = find(array.name);
            if (t.shape() != array.shape)
                throw std::runtime_error(fmt::format("{}: '{}' is {}, llama2.c's layout needs {}", model.path, array.name, t.shapeStr(),
                                                     shapeToString(array.shape)));
            values.resize(size_t(t.numel()));
            dequantize(t.dtype(), t.rawData(), values.data(), t.numel());
        }
        put(values.data(), values.size() * sizeof(float));
    }
    file.commit();
}

}  // namespace llama
