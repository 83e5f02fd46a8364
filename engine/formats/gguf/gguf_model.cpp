#include "formats/gguf/gguf_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

#include "formats/gguf/gguf_file.h"
#include "formats/gguf/gguf_llama.h"
#include "formats/gguf/gguf_tokenizer.h"

namespace llama {

namespace {

// The context length we allocate the KV cache for unless --max-seq-len asks for more: the
// same default as for Meta's layout (Llama 3.1's 131072 positions would need ~17 GB of cache).
constexpr int64_t kDefaultContext = 2048;

class Metadata {
public:
    explicit Metadata(const GgufFile& f) : f_(f) {}

    [[noreturn]] void fail(const std::string& what) const { throw std::runtime_error(f_.path() + ": " + what); }

    std::optional<int64_t> positiveInt(const std::string& key, bool required) const {
        const GgufValue* v = f_.find(key);
        if (!v) {
            if (required) fail("missing metadata '" + key + "'");
            return std::nullopt;
        }
        if (!v->isInteger() || v->integer <= 0 || v->integer > INT32_MAX)
            fail(fmt::format("metadata '{}' must be a positive integer (got a {})", key, ggufTypeName(v->type)));
        return v->integer;
    }
    std::optional<double> number(const std::string& key) const {
        const GgufValue* v = f_.find(key);
        if (!v) return std::nullopt;
        if (!v->isFloat() && !v->isInteger()) fail(fmt::format("metadata '{}' must be a number (got a {})", key, ggufTypeName(v->type)));
        // A float32 as the shortest decimal that reads back as it (1e-05, not 9.99999974e-06):
        // the value the model's config had before it was stored in 32 bits.
        if (v->type == GgufType::F32) return std::stod(fmt::format("{}", float(v->real)));
        return v->isFloat() ? v->real : double(v->integer);
    }
    std::optional<std::string> string(const std::string& key) const {
        const GgufValue* v = f_.find(key);
        if (!v) return std::nullopt;
        if (v->type != GgufType::String) fail(fmt::format("metadata '{}' must be a string (got a {})", key, ggufTypeName(v->type)));
        return v->text;
    }

private:
    const GgufFile& f_;
};

// Llama 3.1's scaling is the only one we implement: accepted when rope_freqs.weight holds
// exactly its factors (what llama.cpp writes for rope_type "llama3"), whose last entry is the
// scale factor (8 for Llama 3.1, 32 for 3.2 1B/3B); sets a.rope_scale_factor.
bool usesLlama31Scaling(const Metadata& md, const GgufFile& f, ModelArgs& a, bool shapesOnly) {
    if (auto type = md.string("llama.rope.scaling.type"); type && *type != "none")
        md.fail(fmt::format("llama.rope.scaling.type '{}' is not supported (only Llama 3.1's rope_freqs factors are)", *type));
    for (const auto& info : f.tensors()) {
        if (info.name != "rope_freqs.weight") continue;
        const int64_t n = a.headDim() / 2;
        if (info.shape != Shape{n} || info.dtype != DType::F32)
            md.fail(fmt::format("rope_freqs.weight is {} {}, expected F32 [{}]", dtypeName(info.dtype), shapeToString(info.shape), n));
        if (shapesOnly) return true;  // a dry run reads no tensor data: the factors are not checked
        Tensor t = f.tensor(info);
        a.rope_scale_factor = t.floatAt(n - 1);
        std::vector<float> want = llama31RopeFactors(a.headDim(), a.rope_theta, float(a.rope_scale_factor));
        for (size_t i = 0; i < want.size(); ++i)
            if (std::abs(t.floatAt(int64_t(i)) - want[i]) > 1e-4f * want[i])
                md.fail(fmt::format("rope_freqs.weight[{}] = {} is not Llama 3.1's scaling factor {} (other RoPE scalings are not "
                                    "supported)", i, t.floatAt(int64_t(i)), want[i]));
        return true;
    }
    return false;
}

}  // namespace

Model loadGgufModel(const std::string& path, const LoadProgress& progress, bool shapesOnly) {
    GgufFile f = GgufFile::open(path);
    Metadata md(f);
    std::string arch = md.string("general.architecture").value_or("(absent)");
    if (arch != "llama") md.fail(fmt::format("general.architecture is '{}': only 'llama' models are supported", arch));

    Model m;
    m.path = path;
    m.tokenizer = loadGgufTokenizer(f);
    m.chatTemplate = md.string("tokenizer.chat_template").value_or("");
    ModelArgs& a = m.args;
    a.dim = int(*md.positiveInt("llama.embedding_length", true));
    a.n_layers = int(*md.positiveInt("llama.block_count", true));
    a.n_heads = int(*md.positiveInt("llama.attention.head_count", true));
    a.n_kv_heads = int(md.positiveInt("llama.attention.head_count_kv", false).value_or(a.n_heads));
    a.ffn_hidden_dim = int(*md.positiveInt("llama.feed_forward_length", true));
    a.vocab_size = m.tokenizer->vocabSize();
    if (auto v = md.positiveInt("llama.vocab_size", false); v && *v != a.vocab_size)
        md.fail(fmt::format("llama.vocab_size is {} but the tokenizer has {} tokens", *v, a.vocab_size));
    a.norm_eps = md.number("llama.attention.layer_norm_rms_epsilon").value_or(-1);
    a.rope_theta = md.number("llama.rope.freq_base").value_or(10000.0);
    a.max_seq_len = int(std::min(md.positiveInt("llama.context_length", false).value_or(kDefaultContext), kDefaultContext));
    a.validate(path, ModelArgs::VocabSize::Stated,
               {.dim = "llama.embedding_length", .n_layers = "llama.block_count", .n_heads = "llama.attention.head_count",
                .n_kv_heads = "llama.attention.head_count_kv", .vocab_size = "tokenizer.ggml.tokens", .ffn = "llama.feed_forward_length",
                .norm_eps = "llama.attention.layer_norm_rms_epsilon", .rope_theta = "llama.rope.freq_base",
                .max_seq_len = "llama.context_length"});
    if (auto rotated = md.positiveInt("llama.rope.dimension_count", false); rotated && *rotated != a.headDim())
        md.fail(fmt::format("llama.rope.dimension_count {} differs from the head dimension {} (partial RoPE is not supported)", *rotated,
                            a.headDim()));
    a.use_scaled_rope = usesLlama31Scaling(md, f, a, shapesOnly);

    std::map<std::string, size_t> count;
    for (const auto& info : f.tensors()) {
        count[dtypeName(info.dtype)]++;
        if (auto meta = metaNameOfGguf(info.name))
            m.tensors.emplace_back(*meta, shapesOnly ? Tensor::shapeOnly(info.shape, info.dtype) : f.tensor(info));
    }
    // Tied embeddings (Llama 3.2 1B/3B): no output.weight, the token embedding is reused.
    auto has = [&](const char* name) {
        return std::any_of(m.tensors.begin(), m.tensors.end(), [&](const auto& t) { return t.first == name; });
    };
    if (!has("output.weight") && has("tok_embeddings.weight"))
        for (const auto& [n, t] : m.tensors)
            if (n == "tok_embeddings.weight") {
                m.tensors.emplace_back("output.weight", t);
                break;
            }
    std::string types;
    for (const auto& [name, n] : count) types += fmt::format("{}{} {}", types.empty() ? "" : ", ", n, name);
    m.format = fmt::format("GGUF v{} ({})", f.version(), types);
    if (!shapesOnly) f.file().prefault(progress);
    return m;
}

// By extension or by magic, so a GGUF file named otherwise is still recognised.
bool isGgufFile(const std::string& path) {
    const std::filesystem::path file(path);
    if (!std::filesystem::is_regular_file(file)) return false;
    if (file.extension() == ".gguf") return true;
    char magic[4] = {};
    std::ifstream in(file, std::ios::binary);
    return in.read(magic, 4) && std::string_view(magic, 4) == "GGUF";
}

}  // namespace llama
