#include "model/model_args.h"

#include <fmt/format.h>

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

void ModelArgs::validate(const std::string& source, VocabSize vocab) const {
    auto fail = [&](const std::string& what) { throw std::invalid_argument(source + ": " + what); };
    if (dim <= 0) fail("'dim' must be positive");
    if (n_layers <= 0) fail("'n_layers' must be positive");
    if (n_heads <= 0) fail("'n_heads' must be positive");
    if (n_kv_heads <= 0) fail("'n_kv_heads' must be positive");
    const bool fromTokenizer = vocab == VocabSize::MayComeFromTokenizer && vocab_size == -1;
    if (vocab_size <= 0 && !fromTokenizer) fail("'vocab_size' must be positive (got " + std::to_string(vocab_size) + ")");
    if (multiple_of <= 0) fail("'multiple_of' must be positive");
    if (dim % n_heads) fail(fmt::format("'dim' ({}) must be divisible by 'n_heads' ({})", dim, n_heads));
    if (n_heads % n_kv_heads) fail(fmt::format("'n_heads' ({}) must be divisible by 'n_kv_heads' ({})", n_heads, n_kv_heads));
    if (headDim() % 2) fail(fmt::format("head dimension {} must be even for RoPE", headDim()));
    if (!(norm_eps > 0)) fail("'norm_eps' must be positive");
    if (!(rope_theta > 0)) fail("'rope_theta' must be positive");
    if (max_seq_len <= 0) fail("context length must be positive");
    if (ffn_hidden_dim && *ffn_hidden_dim <= 0) fail("'intermediate_size' must be positive");
}

}  // namespace llama
