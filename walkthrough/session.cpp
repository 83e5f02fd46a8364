#include "session.h"

#include <fmt/format.h>

#include <cstdio>

#include "formats/model_loader.h"
#include "model/synthetic.h"

namespace llama::cli {

Model loadSelectedModel(const Options& options) {
    Model model;
    if (!options.synthetic.empty()) {
        model = makeSyntheticModel(options.synthetic, options.sampling.seed, false);
    } else {
        // Loading maps the file; the progress bar follows the pages being read in.
        int lastPercent = -1;
        model = loadModel(options.model, [&](size_t done, size_t total) {
            int percent = total ? int(100 * done / total) : 100;
            if (percent == lastPercent || options.quiet) return;
            lastPercent = percent;
            fmt::print(stderr, "\rLoading weights: {:3d}% ({:.1f} / {:.1f} MB)", percent, done / 1e6, total / 1e6);
            if (done >= total) fmt::print(stderr, "\n");
        });
    }
    if (options.maxSeqLen > 0) model.args.max_seq_len = options.maxSeqLen;
    return model;
}

void printModelSummary(const Model& m) {
    const ModelArgs& a = m.args;
    fmt::print("Model: {}\n  source: {}\n", m.format, m.path);
    fmt::print("  dim {} | n_layers {} | n_heads {} | n_kv_heads {} (N_Rep {}) | HeadDim {} | FFN hidden {}\n", a.dim, a.n_layers,
               a.n_heads, a.n_kv_heads, a.nRep(), a.headDim(), a.ffnHiddenDim());
    fmt::print("  vocab_size {} | norm_eps {} | rope_theta {} | use_scaled_rope {} | context {}\n", a.vocab_size, a.norm_eps,
               a.rope_theta, a.use_scaled_rope, a.max_seq_len);
    fmt::print("  {} tensors, {:.1f} MB, dtype {}\n", m.tensors.size(), m.totalBytes() / 1e6, m.weightsDType());
    if (m.randomWeights) fmt::print("  Note: random weights: the generated text will be gibberish.\n");
}

}  // namespace llama::cli
