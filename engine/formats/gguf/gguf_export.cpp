#include "formats/gguf/gguf_export.h"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "formats/gguf/gguf_llama.h"
#include "formats/gguf/gguf_tokenizer.h"
#include "formats/gguf/gguf_writer.h"
#include "tensor/quant_blocks.h"
#include "formats/gguf/quantize.h"

namespace llama {

namespace {

// llama.cpp's general.file_type (enum llama_ftype) for a file whose weights are mostly `t`.
uint32_t fileType(DType t) {
    switch (t) {
        case DType::F32: return 0;   // ALL_F32
        case DType::F16: return 1;   // MOSTLY_F16
        case DType::Q4_0: return 2;  // MOSTLY_Q4_0
        case DType::Q8_0: return 7;  // MOSTLY_Q8_0
        case DType::Q4_K: return 14; // MOSTLY_Q4_K_S, the closest label for "all Q4_K"
        case DType::Q6_K: return 18; // MOSTLY_Q6_K
        case DType::BF16: return 32; // MOSTLY_BF16
        default: throw std::invalid_argument(std::string("cannot write GGUF weights as ") + dtypeName(t));
    }
}

DType typeFor(const Tensor& t, DType wanted) {
    if (t.rank() == 1) return DType::F32;
    for (DType candidate : {wanted, DType::Q8_0, DType::F32})
        if (t.dim(-1) % dtypeBlockSize(candidate) == 0) return candidate;
    return DType::F32;
}

}  // namespace

void exportGguf(const Model& model, DType weightType, const std::string& outPath) {
    const auto* tiktoken = dynamic_cast<const TiktokenTokenizer*>(model.tokenizer.get());
    const auto* spm = dynamic_cast<const SpmScoresTokenizer*>(model.tokenizer.get());
    if (!tiktoken && !spm)
        throw std::runtime_error("GGUF export needs Llama 3's tiktoken tokenizer or a SentencePiece vocabulary with scores (a GGUF file's)");
    const ModelArgs& a = model.args;
    GgufWriter w;
    w.add("general.architecture", GgufValue::ofString("llama"));
    w.add("general.type", GgufValue::ofString("model"));
    w.add("general.name", GgufValue::ofString(std::filesystem::path(model.path).filename().string()));
    w.add("llama.block_count", GgufValue::ofU32(uint32_t(a.n_layers)));
    w.add("llama.context_length", GgufValue::ofU32(uint32_t(a.max_seq_len)));
    w.add("llama.embedding_length", GgufValue::ofU32(uint32_t(a.dim)));
    w.add("llama.feed_forward_length", GgufValue::ofU32(uint32_t(a.ffnHiddenDim())));
    w.add("llama.attention.head_count", GgufValue::ofU32(uint32_t(a.n_heads)));
    w.add("llama.attention.head_count_kv", GgufValue::ofU32(uint32_t(a.n_kv_heads)));
    w.add("llama.rope.freq_base", GgufValue::ofF32(float(a.rope_theta)));
    w.add("llama.attention.layer_norm_rms_epsilon", GgufValue::ofF32(float(a.norm_eps)));
    w.add("general.file_type", GgufValue::ofU32(fileType(weightType)));
    w.add("llama.vocab_size", GgufValue::ofU32(uint32_t(a.vocab_size)));
    w.add("llama.rope.dimension_count", GgufValue::ofU32(uint32_t(a.headDim())));
    if (tiktoken) addGgufTokenizer(w, *tiktoken);
    else addGgufTokenizer(w, *spm);
    if (!model.chatTemplate.empty()) w.add("tokenizer.chat_template", GgufValue::ofString(model.chatTemplate));
    w.add("general.quantization_version", GgufValue::ofU32(2));

    if (a.use_scaled_rope) {
        std::vector<float> factors = llama31RopeFactors(a.headDim(), a.rope_theta, float(a.rope_scale_factor));
        w.addTensor("rope_freqs.weight", {int64_t(factors.size())}, DType::F32,
                    [factors] { return quantize(DType::F32, factors.data(), int64_t(factors.size())); });
    }
    for (const auto& [name, tensor] : model.tensors) {
        auto gguf = ggufNameOfMeta(name);
        if (!gguf) throw std::runtime_error(fmt::format("{}: tensor '{}' has no GGUF name (not a Llama weight)", model.path, name));
        const Tensor t = tensor;
        DType type = typeFor(t, weightType);
        w.addTensor(*gguf, t.shape(), type, [t, type] {
            std::vector<float> values(size_t(t.numel()));
            dequantize(t.dtype(), t.rawData(), values.data(), t.numel());
            return quantize(type, values.data(), t.numel());
        });
    }
    w.write(outPath);
}

}  // namespace llama
