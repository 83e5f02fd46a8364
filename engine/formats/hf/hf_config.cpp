#include "formats/hf/hf_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "io/json_file.h"

namespace llama {

HfConfig loadHfConfig(const std::string& path) {
    const nlohmann::json j = readJsonObject(path);
    const JsonFields f(j, path);
    auto fail = [&](const std::string& what) { f.fail(what); };
    if (f.has("model_type") && j["model_type"] != "llama")
        fail(fmt::format("model_type is {}, expected \"llama\"", j["model_type"].dump()));
    HfConfig c;
    ModelArgs& a = c.args;
    a.dim = f.integer("hidden_size", std::nullopt);
    a.n_layers = f.integer("num_hidden_layers", std::nullopt);
    a.n_heads = f.integer("num_attention_heads", std::nullopt);
    a.n_kv_heads = f.integer("num_key_value_heads", a.n_heads);
    a.vocab_size = f.integer("vocab_size", std::nullopt);
    a.ffn_hidden_dim = f.integer("intermediate_size", std::nullopt);
    a.norm_eps = f.number("rms_norm_eps", 1e-5);
    a.rope_theta = f.number("rope_theta", 10000.0);
    a.max_seq_len = f.integer("max_position_embeddings", 2048);
    if (f.has("head_dim") && f.integer("head_dim", 0) != a.dim / std::max(a.n_heads, 1))
        fail("field 'head_dim' differs from hidden_size / num_attention_heads, which this program assumes");
    if (f.has("rope_scaling")) {
        const auto& rs = j["rope_scaling"];
        if (!rs.is_object()) fail("field 'rope_scaling' must be an object or null");
        const std::string type = rs.value("rope_type", rs.value("type", std::string()));
        if (type != "llama3") fail(fmt::format("rope_scaling type '{}' is not supported (only \"llama3\")", type));
        // Our RoPE (model/rope.cpp) has Meta's Llama 3.1/3.2 constants; only the factor varies (8 or 32).
        const std::pair<const char*, double> expected[] = {
            {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0}, {"original_max_position_embeddings", 8192.0}};
        const JsonFields scaling(rs, path + ": rope_scaling");
        for (const auto& [key, value] : expected)
            if (scaling.number(key, std::nullopt) != value)
                fail(fmt::format("rope_scaling.{} is {}, but only Llama 3.1's value {} is supported", key, scaling.number(key, 0.0), value));
        a.use_scaled_rope = true;
        a.rope_scale_factor = scaling.number("factor", std::nullopt);
        if (!(a.rope_scale_factor >= 1)) fail("rope_scaling.factor must be at least 1");
    }
    c.tieWordEmbeddings = f.boolean("tie_word_embeddings", c.tieWordEmbeddings);
    if (f.has("torch_dtype")) c.torchDtype = j["torch_dtype"].is_string() ? j["torch_dtype"].get<std::string>() : "";
    a.validate(path, ModelArgs::VocabSize::Stated,
               {.dim = "hidden_size", .n_layers = "num_hidden_layers", .n_heads = "num_attention_heads",
                .n_kv_heads = "num_key_value_heads", .vocab_size = "vocab_size", .ffn = "intermediate_size",
                .norm_eps = "rms_norm_eps", .rope_theta = "rope_theta", .max_seq_len = "max_position_embeddings"});
    return c;
}

}  // namespace llama
