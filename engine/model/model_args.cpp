#include "model/model_args.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace llama {

int ModelArgs::ffnHiddenDim() const {
    if (ffn_hidden_dim) return *ffn_hidden_dim;
    // Meta: hidden = 4 * dim; hidden = int(2 * hidden / 3); optional multiplier; round up to multiple_of.
    int hidden = 4 * dim;
    hidden = int(2 * hidden / 3);
    if (ffn_dim_multiplier) hidden = int(*ffn_dim_multiplier * hidden);
    return multiple_of * ((hidden + multiple_of - 1) / multiple_of);
}

void ModelArgs::validate(const std::string& source, VocabSize vocab, const ModelArgKeys& k) const {
    auto fail = [&](const std::string& what) { throw std::invalid_argument(source + ": " + what); };
    auto inRange = [&](const char* key, int64_t value, int64_t max) {
        if (value <= 0 || value > max) fail(fmt::format("'{}' is {}: expected 1 to {}", key, value, max));
    };
    inRange(k.dim, dim, kMaxDim);
    inRange(k.n_layers, n_layers, kMaxLayers);
    inRange(k.n_heads, n_heads, kMaxHeads);
    inRange(k.n_kv_heads, n_kv_heads, kMaxHeads);
    if (!(vocab == VocabSize::MayComeFromTokenizer && vocab_size == -1)) inRange(k.vocab_size, vocab_size, kMaxVocab);
    inRange("multiple_of", multiple_of, kMaxFfn);
    inRange(k.max_seq_len, max_seq_len, kMaxPositions);
    if (dim % n_heads) fail(fmt::format("'{}' ({}) must be divisible by '{}' ({})", k.dim, dim, k.n_heads, n_heads));
    if (n_heads % n_kv_heads) fail(fmt::format("'{}' ({}) must be divisible by '{}' ({})", k.n_heads, n_heads, k.n_kv_heads, n_kv_heads));
    if (headDim() % 2) fail(fmt::format("head dimension {} must be even for RoPE", headDim()));
    if (!(norm_eps > 0 && norm_eps < 1)) fail(fmt::format("'{}' is {}: expected a small positive number", k.norm_eps, norm_eps));
    if (!(rope_theta > 0 && std::isfinite(rope_theta))) fail(fmt::format("'{}' is {}: expected a positive number", k.rope_theta, rope_theta));
    // Llama 3 uses 1.3 and 405B 1.2: the multiplier scales the FFN width, it cannot flip or explode it.
    if (ffn_dim_multiplier && !(*ffn_dim_multiplier > 0 && *ffn_dim_multiplier <= 16))
        fail(fmt::format("'{}' is {}: expected more than 0 and at most 16", k.ffn, *ffn_dim_multiplier));
    if (ffn_hidden_dim) inRange(k.ffn, *ffn_hidden_dim, kMaxFfn);
    else inRange("FFN hidden size (from dim, ffn_dim_multiplier and multiple_of)", ffnHiddenDim(), kMaxFfn);
}

int64_t ModelArgs::runBytes() const {
    const int64_t kvCache = 2 * int64_t(n_layers) * max_seq_len * n_kv_heads * headDim() * 2;
    const int64_t rope = 2 * int64_t(max_seq_len) * (headDim() / 2) * 8;
    return kvCache + rope;
}

}  // namespace llama
