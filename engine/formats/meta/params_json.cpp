#include "formats/meta/params_json.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "io/json_file.h"

namespace llama {

ModelArgs loadParamsJson(const std::string& path) {
    const nlohmann::json j = readJsonObject(path);
    const JsonFields f(j, path);
    ModelArgs a;
    a.dim = f.integer("dim", std::nullopt);
    a.n_layers = f.integer("n_layers", std::nullopt);
    a.n_heads = f.integer("n_heads", std::nullopt);
    a.n_kv_heads = f.integer("n_kv_heads", a.n_heads);
    a.vocab_size = f.integer("vocab_size", std::nullopt);
    a.multiple_of = f.integer("multiple_of", 256);
    if (f.has("ffn_dim_multiplier")) a.ffn_dim_multiplier = f.number("ffn_dim_multiplier", std::nullopt);
    a.norm_eps = f.number("norm_eps", 1e-5);
    a.rope_theta = f.number("rope_theta", 10000.0);
    a.use_scaled_rope = f.boolean("use_scaled_rope", false);
    a.max_seq_len = f.integer("max_seq_len", 2048);
    // Llama 2's params.json says vocab_size -1: the tokenizer decides, and the loader fills it in.
    a.validate(path, ModelArgs::VocabSize::MayComeFromTokenizer);
    return a;
}

}  // namespace llama
