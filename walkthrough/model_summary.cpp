#include "model_summary.h"

#include <fmt/format.h>

namespace llama::cli {

void printModelSummary(const Model& m) {
    const ModelArgs& a = m.args;
    fmt::print("Model: {}\n  source: {}\n", m.format, m.path);
    fmt::print("  dim {} | n_layers {} | n_heads {} | n_kv_heads {} (N_Rep {}) | HeadDim {} | FFN hidden {}\n", a.dim, a.n_layers,
               a.n_heads, a.n_kv_heads, a.nRep(), a.headDim(), a.ffnHiddenDim());
    fmt::print("  vocab_size {} | norm_eps {} | rope_theta {} | use_scaled_rope {}{} | context {}\n", a.vocab_size, a.norm_eps,
               a.rope_theta, a.use_scaled_rope, a.use_scaled_rope ? fmt::format(" (factor {})", a.rope_scale_factor) : "",
               a.max_seq_len);
    fmt::print("  {} tensors, {:.1f} MB, dtype {}\n", m.tensors.size(), m.totalBytes() / 1e6, m.weightsDType());
    if (m.randomWeights) fmt::print("  Note: random weights: the generated text will be gibberish.\n");
}

}  // namespace llama::cli
