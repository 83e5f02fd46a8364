#include "model/model_args.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "formats/json_file.h"

namespace llama {

int ModelArgs::ffnHiddenDim() const {
    if (ffn_hidden_dim) return *ffn_hidden_dim;
    // Meta: hidden = 4 * dim; hidden = int(2 * hidden / 3); optional multiplier; round up to multiple_of.
    int hidden = 4 * dim;
    hidden = int(2 * hidden / 3);
    if (ffn_dim_multiplier) hidden = int(*ffn_dim_multiplier * hidden);
    return multiple_of * ((hidden + multiple_of - 1) / multiple_of);
}

void ModelArgs::validate(const std::string& source) const {
    auto fail = [&](const std::string& what) { throw std::invalid_argument(source + ": " + what); };
    if (dim <= 0) fail("'dim' must be positive");
    if (n_layers <= 0) fail("'n_layers' must be positive");
    if (n_heads <= 0) fail("'n_heads' must be positive");
    if (n_kv_heads <= 0) fail("'n_kv_heads' must be positive");
    if (vocab_size <= 0) fail("'vocab_size' must be positive (got " + std::to_string(vocab_size) + ")");
    if (multiple_of <= 0) fail("'multiple_of' must be positive");
    if (dim % n_heads) fail(fmt::format("'dim' ({}) must be divisible by 'n_heads' ({})", dim, n_heads));
    if (n_heads % n_kv_heads) fail(fmt::format("'n_heads' ({}) must be divisible by 'n_kv_heads' ({})", n_heads, n_kv_heads));
    if (headDim() % 2) fail(fmt::format("head dimension {} must be even for RoPE", headDim()));
    if (!(norm_eps > 0)) fail("'norm_eps' must be positive");
    if (!(rope_theta > 0)) fail("'rope_theta' must be positive");
    if (max_seq_len <= 0) fail("context length must be positive");
    if (ffn_hidden_dim && *ffn_hidden_dim <= 0) fail("'intermediate_size' must be positive");
}

ModelArgs loadParamsJson(const std::string& path) {
    nlohmann::json j = readJsonObject(path);

    auto number = [&](const char* key, bool required, double fallback) -> double {
        if (!j.contains(key) || j[key].is_null()) {
            if (required) throw std::runtime_error(fmt::format("{}: missing field '{}'", path, key));
            return fallback;
        }
        if (!j[key].is_number()) throw std::runtime_error(fmt::format("{}: field '{}' must be a number", path, key));
        return j[key].get<double>();
    };
    auto integer = [&](const char* key, bool required, int fallback) -> int {
        double v = number(key, required, fallback);
        if (v != double(int(v))) throw std::runtime_error(fmt::format("{}: field '{}' must be an integer", path, key));
        return int(v);
    };

    ModelArgs a;
    a.dim = integer("dim", true, 0);
    a.n_layers = integer("n_layers", true, 0);
    a.n_heads = integer("n_heads", true, 0);
    a.n_kv_heads = integer("n_kv_heads", false, a.n_heads);
    a.vocab_size = integer("vocab_size", true, 0);
    a.multiple_of = integer("multiple_of", false, 256);
    if (j.contains("ffn_dim_multiplier") && !j["ffn_dim_multiplier"].is_null())
        a.ffn_dim_multiplier = number("ffn_dim_multiplier", true, 0);
    a.norm_eps = number("norm_eps", false, 1e-5);
    a.rope_theta = number("rope_theta", false, 10000.0);
    if (j.contains("use_scaled_rope")) {
        if (!j["use_scaled_rope"].is_boolean())
            throw std::runtime_error(path + ": field 'use_scaled_rope' must be true or false");
        a.use_scaled_rope = j["use_scaled_rope"].get<bool>();
    }
    a.max_seq_len = integer("max_seq_len", false, 2048);
    // Llama 2's params.json says vocab_size -1: the tokenizer decides, and the loader fills it in.
    const bool vocabFromTokenizer = a.vocab_size == -1;
    if (vocabFromTokenizer) a.vocab_size = 1;
    a.validate(path);
    if (vocabFromTokenizer) a.vocab_size = -1;
    return a;
}

}  // namespace llama
