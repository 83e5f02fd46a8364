#include "formats/meta/params_json.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
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

namespace {

// multiple_of and ffn_dim_multiplier for which Meta's formula gives `args`' FFN width, or nullopt.
// Tried plainest first: the largest power of two up to Meta's 1024 that divides the width, with no
// multiplier, then the width's ratio to 8 * dim / 3 rounded to 1, 2 and 3 decimals (Llama 3's 1.3),
// then exactly (and the next double up, should the product land a hair below).
std::optional<ModelArgs> withMetaFfn(ModelArgs a) {
    const int width = a.ffnHiddenDim();
    a.ffn_hidden_dim.reset();
    const double ratio = double(width) / (2 * (4 * a.dim) / 3);
    const std::optional<double> multipliers[] = {std::nullopt, std::round(ratio * 10) / 10, std::round(ratio * 100) / 100,
                                                 std::round(ratio * 1000) / 1000, ratio, std::nextafter(ratio, 2 * ratio)};
    for (int multiple = 1024; multiple >= 1; multiple /= 2) {
        if (width % multiple) continue;
        a.multiple_of = multiple;
        for (const std::optional<double>& m : multipliers) {
            if (m && !(*m > 0 && *m <= 16)) continue;  // what validate() accepts
            a.ffn_dim_multiplier = m;
            if (a.ffnHiddenDim() == width) return a;
        }
    }
    return std::nullopt;
}

}  // namespace

std::string paramsJsonText(const ModelArgs& args, const std::string& source) {
    if (args.use_scaled_rope && args.rope_scale_factor != ModelArgs{}.rope_scale_factor)
        throw std::invalid_argument(fmt::format("{}: RoPE scaling factor {} cannot be written to params.json, whose readers assume {}", source,
                                                args.rope_scale_factor, ModelArgs{}.rope_scale_factor));
    const std::optional<ModelArgs> a = args.ffn_hidden_dim ? withMetaFfn(args) : args;
    if (!a)
        throw std::invalid_argument(fmt::format("{}: FFN width {} (dim {}) cannot be written to params.json: no multiple_of and "
                                                "ffn_dim_multiplier give it through Meta's formula",
                                                source, args.ffnHiddenDim(), args.dim));
    nlohmann::ordered_json j = {{"dim", a->dim},           {"n_layers", a->n_layers},       {"n_heads", a->n_heads},
                                {"n_kv_heads", a->n_kv_heads}, {"vocab_size", a->vocab_size}, {"multiple_of", a->multiple_of}};
    if (a->ffn_dim_multiplier) j["ffn_dim_multiplier"] = *a->ffn_dim_multiplier;
    j["norm_eps"] = a->norm_eps;
    j["rope_theta"] = a->rope_theta;
    j["use_scaled_rope"] = a->use_scaled_rope;
    return j.dump(2) + "\n";
}

}  // namespace llama
