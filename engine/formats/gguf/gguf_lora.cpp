#include "formats/gguf/gguf_lora.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>

#include "formats/gguf/gguf_file.h"
#include "formats/gguf/gguf_llama.h"
#include "formats/gguf/gguf_writer.h"
#include "tensor/bfloat16.h"
#include "tensor/float16.h"

namespace llama {

namespace {

std::string shapeText(const Shape& shape) { return shapeToString(shape); }

// A copy in F32 of an F32, F16 or BF16 tensor of the file.
Tensor toF32(const GgufFile& file, const GgufTensorInfo& info, const std::function<void(const std::string&)>& fail) {
    const Tensor stored = file.tensor(info);
    Tensor t(info.shape, DType::F32);
    float* out = t.mutableData<float>();
    const int64_t n = t.numel();
    switch (GgmlType(info.ggmlType)) {
        case GgmlType::F32: std::memcpy(out, stored.data<float>(), size_t(n) * sizeof(float)); break;
        case GgmlType::F16:
            for (int64_t i = 0; i < n; ++i) out[i] = halfToFloat(static_cast<const uint16_t*>(stored.rawData())[i]);
            break;
        case GgmlType::BF16:
            for (int64_t i = 0; i < n; ++i) out[i] = float(stored.data<BFloat16>()[i]);
            break;
        default: fail(fmt::format("tensor '{}' is {}: LoRA tensors are read as F32, F16 or BF16", info.name, ggmlTypeName(info.ggmlType)));
    }
    for (int64_t i = 0; i < n; ++i)
        if (!std::isfinite(out[i])) fail(fmt::format("tensor '{}' element {} is {}: every value must be a finite number", info.name, i, out[i]));
    return t;
}

}  // namespace

LoraAdapter readLoraAdapter(const LoraFile& lora, const Model& model) {
    const GgufFile file = GgufFile::open(lora.path);
    auto fail = [&](const std::string& what) { throw std::runtime_error(fmt::format("LoRA adapter {}: {}", lora.path, what)); };
    auto text = [&](const char* key) {
        const GgufValue* v = file.find(key);
        return v ? v->text : std::string("(missing)");
    };
    if (text("general.type") != "adapter") fail(fmt::format("general.type is '{}', not 'adapter': this is not an adapter file", text("general.type")));
    if (text("adapter.type") != "lora") fail(fmt::format("adapter.type is '{}', not 'lora'", text("adapter.type")));
    if (text("general.architecture") != "llama")
        fail(fmt::format("general.architecture is '{}': an adapter for a 'llama' model is needed", text("general.architecture")));
    const GgufValue* alpha = file.find("adapter.lora.alpha");
    if (!alpha || !(alpha->isFloat() || alpha->isInteger()))
        fail("adapter.lora.alpha is missing or not a number (llama.cpp's scale is SCALE * alpha / rank)");

    LoraAdapter adapter{.path = lora.path, .alpha = float(alpha->isFloat() ? alpha->real : double(alpha->integer)), .userScale = lora.scale};
    std::map<std::string, std::pair<const GgufTensorInfo*, const GgufTensorInfo*>> byWeight;  // GGUF name of W -> (a, b)
    for (const GgufTensorInfo& info : file.tensors()) {
        const bool isA = info.name.ends_with(".lora_a"), isB = info.name.ends_with(".lora_b");
        if (!isA && !isB) {
            if (info.name.ends_with("_norm.weight")) continue;  // as llama.cpp: mergekit's norms are not applied
            fail(fmt::format("tensor '{}': expected <weight>.lora_a or <weight>.lora_b", info.name));
        }
        auto& [a, b] = byWeight[info.name.substr(0, info.name.size() - 7)];
        (isA ? a : b) = &info;
    }
    if (byWeight.empty()) fail("it has no .lora_a / .lora_b tensors");
    for (const auto& [ggufName, ab] : byWeight) {
        const auto [infoA, infoB] = ab;
        if (!infoA || !infoB) fail(fmt::format("tensor '{}.{}' has no partner '{}.{}'", ggufName, infoA ? "lora_a" : "lora_b", ggufName, infoA ? "lora_b" : "lora_a"));
        const std::optional<std::string> metaName = metaNameOfGguf(ggufName);
        const Tensor* w = nullptr;
        if (metaName)
            for (const auto& [name, t] : model.tensors)
                if (name == *metaName) w = &t;
        if (!w) fail(fmt::format("tensor '{}.lora_a' adapts '{}', which the model ({}) does not have", ggufName, ggufName, model.path));
        if (ggufName.starts_with("token_embd") || ggufName.starts_with("output"))
            fail(fmt::format("tensor '{}.lora_a': this engine applies adapters to the blocks' matrices (attn_q, attn_k, attn_v, attn_output, ffn_gate, "
                             "ffn_down, ffn_up), not to {}",
                             ggufName, ggufName));
        const Shape& a = infoA->shape;
        const Shape& b = infoB->shape;
        if (a.size() != 2 || b.size() != 2)
            fail(fmt::format("tensors '{}.lora_a' {} and '{}.lora_b' {} must be matrices", ggufName, shapeText(a), ggufName, shapeText(b)));
        if (a[0] != b[1])
            fail(fmt::format("'{}.lora_a' is {} (rank {}) but '{}.lora_b' is {} (rank {}): A is [rank, in] and B [out, rank] of one rank", ggufName,
                             shapeText(a), a[0], ggufName, shapeText(b), b[1]));
        if (a[1] != w->dim(1) || b[0] != w->dim(0))
            fail(fmt::format("'{}.lora_a' is {} and '{}.lora_b' is {}, but the model's {} is {} ([out, in]): the adapter is for a [{} {}] "
                             "matrix, of another model",
                             ggufName, shapeText(a), ggufName, shapeText(b), ggufName, shapeText(w->shape()), b[0], a[1]));
        adapter.pairs[*metaName] = {toF32(file, *infoA, fail), toF32(file, *infoB, fail)};
    }
    return adapter;
}

void writeLoraAdapter(const std::string& path, const LoraAdapter& adapter) {
    GgufWriter w;
    w.add("general.architecture", GgufValue::ofString("llama"));
    w.add("general.type", GgufValue::ofString("adapter"));
    w.add("general.name", GgufValue::ofString("llama-walkthrough LoRA"));
    w.add("adapter.type", GgufValue::ofString("lora"));
    w.add("adapter.lora.alpha", GgufValue::ofF32(adapter.alpha));
    auto f32 = [](const Tensor& t) {
        return [t] {
            std::vector<uint8_t> bytes(size_t(t.numel()) * sizeof(float));
            std::memcpy(bytes.data(), t.data<float>(), bytes.size());
            return bytes;
        };
    };
    for (const auto& [metaName, pair] : adapter.pairs) {
        const std::optional<std::string> ggufName = ggufNameOfMeta(metaName);
        if (!ggufName) throw std::logic_error("no GGUF name for " + metaName);
        w.addTensor(*ggufName + ".lora_a", pair.A.shape(), DType::F32, f32(pair.A));
        w.addTensor(*ggufName + ".lora_b", pair.B.shape(), DType::F32, f32(pair.B));
    }
    w.write(path);
}

}  // namespace llama
