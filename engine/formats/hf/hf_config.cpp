#include "formats/hf/hf_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "formats/json_file.h"

namespace llama {

HfConfig loadHfConfig(const std::string& path) {
    nlohmann::json j = readJsonObject(path);
    auto fail = [&](const std::string& what) { throw std::runtime_error(path + ": " + what); };
    auto present = [&](const nlohmann::json& o, const char* key) { return o.contains(key) && !o[key].is_null(); };
    auto number = [&](const nlohmann::json& o, const char* key, std::optional<double> fallback) -> double {
        if (!present(o, key)) {
            if (!fallback) fail(fmt::format("missing field '{}'", key));
            return *fallback;
        }
        if (!o[key].is_number()) fail(fmt::format("field '{}' must be a number", key));
        return o[key].get<double>();
    };
    auto integer = [&](const char* key, std::optional<int> fallback) -> int {
        const double v = number(j, key, fallback ? std::optional<double>(*fallback) : std::nullopt);
        if (v != double(int(v))) fail(fmt::format("field '{}' must be an integer", key));
        return int(v);
    };

    if (present(j, "model_type") && j["model_type"] != "llama")
        fail(fmt::format("model_type is {}, expected \"llama\"", j["model_type"].dump()));
    HfConfig c;
    ModelArgs& a = c.args;
    a.dim = integer("hidden_size", std::nullopt);
    a.n_layers = integer("num_hidden_layers", std::nullopt);
    a.n_heads = integer("num_attention_heads", std::nullopt);
    a.n_kv_heads = integer("num_key_value_heads", a.n_heads);
    a.vocab_size = integer("vocab_size", std::nullopt);
    a.ffn_hidden_dim = integer("intermediate_size", std::nullopt);
    a.norm_eps = number(j, "rms_norm_eps", 1e-5);
    a.rope_theta = number(j, "rope_theta", 10000.0);
    a.max_seq_len = integer("max_position_embeddings", 2048);
    if (present(j, "head_dim") && integer("head_dim", 0) != a.dim / std::max(a.n_heads, 1))
        fail("field 'head_dim' differs from hidden_size / num_attention_heads, which this program assumes");
    if (present(j, "rope_scaling")) {
        const auto& rs = j["rope_scaling"];
        if (!rs.is_object()) fail("field 'rope_scaling' must be an object or null");
        const std::string type = rs.value("rope_type", rs.value("type", std::string()));
        if (type != "llama3") fail(fmt::format("rope_scaling type '{}' is not supported (only \"llama3\")", type));
        // Our RoPE (model/rope.cpp) has Meta's Llama 3.1/3.2 constants; only the factor varies (8 or 32).
        const std::pair<const char*, double> expected[] = {
            {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0}, {"original_max_position_embeddings", 8192.0}};
        for (const auto& [key, value] : expected)
            if (number(rs, key, std::nullopt) != value)
                fail(fmt::format("rope_scaling.{} is {}, but only Llama 3.1's value {} is supported", key, number(rs, key, 0.0), value));
        a.use_scaled_rope = true;
        a.rope_scale_factor = number(rs, "factor", std::nullopt);
        if (!(a.rope_scale_factor >= 1)) fail("rope_scaling.factor must be at least 1");
    }
    if (present(j, "tie_word_embeddings")) {
        if (!j["tie_word_embeddings"].is_boolean()) fail("field 'tie_word_embeddings' must be true or false");
        c.tieWordEmbeddings = j["tie_word_embeddings"].get<bool>();
    }
    if (present(j, "torch_dtype")) c.torchDtype = j["torch_dtype"].is_string() ? j["torch_dtype"].get<std::string>() : "";
    a.validate(path);
    return c;
}

}  // namespace llama
