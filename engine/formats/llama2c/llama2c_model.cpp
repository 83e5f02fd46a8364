#include "formats/llama2c/llama2c_model.h"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "formats/llama2c/llama2c_header.h"
#include "formats/llama2c/llama2c_layout.h"
#include "formats/llama2c/llama2c_tokenizer.h"
#include "io/mapped_file.h"
#include "tensor/float16.h"

namespace llama {

namespace {

constexpr int64_t kQ8Block = 32;

// Q8_0 holds the same integers with a float16 scale per 32: the weights stay exactly the
// file's only when the groups split into 32s and every scale is a float16 value.
bool fitsQ8_0(const Llama2cHeader& header, const std::byte* data) {
    if (header.groupSize % kQ8Block != 0) return false;
    for (const Llama2cArray& a : llama2cLayout(header)) {
        const std::byte* here = data;
        data += a.fileBytes(header.groupSize);
        if (a.kind != Llama2cArray::Kind::Int8Groups) continue;
        const int64_t n = a.numel();
        for (int64_t g = 0; g < n / header.groupSize; ++g) {
            float scale;
            std::memcpy(&scale, here + n + 4 * g, 4);
            if (halfToFloat(floatToHalf(scale)) != scale) return false;
        }
    }
    return true;
}

// Version 2's int8 weights and their per-group float32 scales (scales follow the weights), as
// Q8_0 blocks or as F32.
Tensor fromInt8Groups(const Shape& shape, const std::byte* at, int64_t groupSize, bool asQ8_0) {
    const int64_t n = shapeNumel(shape), groups = n / groupSize;
    const auto* q = reinterpret_cast<const int8_t*>(at);
    std::vector<float> scales(static_cast<size_t>(groups));
    std::memcpy(scales.data(), at + n, size_t(groups) * 4);
    if (asQ8_0) {
        // Q8_0: per 32 weights a float16 scale and the same int8 values.
        Tensor t(shape, DType::Q8_0);
        uint8_t* out = t.mutableData<uint8_t>();
        for (int64_t b = 0; b < n / kQ8Block; ++b, out += 2 + kQ8Block) {
            const uint16_t d = floatToHalf(scales[size_t(b * kQ8Block / groupSize)]);
            std::memcpy(out, &d, 2);
            std::memcpy(out + 2, q + b * kQ8Block, kQ8Block);
        }
        return t;
    }
    Tensor t(shape, DType::F32);
    float* out = t.mutableData<float>();
    for (int64_t i = 0; i < n; ++i) out[i] = float(q[i]) * scales[size_t(i / groupSize)];
    return t;
}

}  // namespace

Model loadLlama2cModel(const std::string& path, const std::string& tokenizerPath, const LoadProgress& progress, bool shapesOnly) {
    auto file = std::make_shared<const MappedFile>(path);
    const Llama2cHeader header = readLlama2cHeader(file->bytes(), path);
    Model m;
    m.path = path;
    m.args = header.args();
    const std::string tokenizerFile =
        tokenizerPath.empty() ? (std::filesystem::path(path).parent_path() / "tokenizer.bin").string() : tokenizerPath;
    if (!std::filesystem::is_regular_file(tokenizerFile))
        throw std::runtime_error(fmt::format("{}: a llama2.c checkpoint needs its tokenizer.bin: none at '{}' (pass --tokenizer FILE)", path,
                                             tokenizerFile));
    m.tokenizer = loadLlama2cTokenizer(tokenizerFile, header.vocabSize);
    m.format = header.formatName();
    const std::byte* at = file->bytes().data() + header.dataOffset;
    // runq.c's float32 scales are rarely float16 values; rounding them would change every weight
    // (the greedy text then parts from runq.c's), so such files are widened to F32 instead.
    const bool q8 = header.version == 2 && fitsQ8_0(header, at);
    if (header.version == 2)
        m.format += q8 ? ", read as Q8_0 (the same integers; every scale is a float16 value)"
                    : header.groupSize % kQ8Block != 0
                        ? fmt::format(", dequantized to F32 while loading (group size {} is not a multiple of Q8_0's 32)", header.groupSize)
                        : ", dequantized to F32 while loading (its float32 scales are not float16 values: as Q8_0 every weight would change)";

    for (const Llama2cArray& a : llama2cLayout(header)) {
        const std::byte* here = at;
        at += a.fileBytes(header.groupSize);
        // run.c never reads the legacy file's RoPE tables: the engine computes the same angles.
        if (a.kind == Llama2cArray::Kind::RopeTable) continue;
        const bool int8 = a.kind == Llama2cArray::Kind::Int8Groups;
        const DType dtype = int8 && q8 ? DType::Q8_0 : DType::F32;
        if (shapesOnly)
            m.tensors.emplace_back(a.name, Tensor::shapeOnly(a.shape, dtype));
        else if (int8)
            m.tensors.emplace_back(a.name, fromInt8Groups(a.shape, here, header.groupSize, q8));
        else
            m.tensors.emplace_back(a.name, Tensor::view(a.shape, DType::F32, file, here));
    }
    if (header.sharedClassifier)
        for (const auto& [name, t] : m.tensors)
            if (name == "tok_embeddings.weight") {
                m.tensors.emplace_back("output.weight", t);
                break;
            }
    if (!shapesOnly) file->prefault(progress);
    return m;
}

}  // namespace llama
