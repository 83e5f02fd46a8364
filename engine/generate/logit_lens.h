#pragma once
// The logit lens: what the model "would say" after any layer. The residual stream leaving a
// block goes through the final RMSNorm and the output projection, exactly as the last block's
// output does at stage 19, and the most likely tokens are read off (softmax at temperature 1).
// After the last layer the lens is the model's real prediction; earlier layers show how the
// prediction forms with depth.
#include <vector>

#include "generate/sampler.h"
#include "model/llama_transformer.h"

namespace llama {

class LogitLens {
public:
    // Borrows the transformer's output_norm and output weights; it must outlive the lens.
    explicit LogitLens(const LlamaTransformer& transformer) : transformer_(transformer) {}

    // residual [seqLen, Dim] -> for each position, its k most likely tokens, most likely first.
    // Empty for a shape-only (dry run) tensor.
    std::vector<std::vector<TokenProbability>> topTokens(const Tensor& residual, int k) const;

private:
    const LlamaTransformer& transformer_;
};

}  // namespace llama
