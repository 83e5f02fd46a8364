#include "formats/meta/params_json.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "formats/json_file.h"

namespace llama {

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
    a.validate(path, ModelArgs::VocabSize::MayComeFromTokenizer);
    return a;
}

}  // namespace llama
