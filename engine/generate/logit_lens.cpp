#include "generate/logit_lens.h"

#include "ml/ops.h"

namespace llama {

std::vector<std::vector<TokenProbability>> LogitLens::topTokens(const Tensor& residual, int k) const {
    if (!residual.hasData() || residual.rank() != 2) return {};
    // Stage 19's three steps, on this depth's residual stream.
    const Tensor normalized = transformer_.output_norm.Forward(residual);
    const Tensor logits = ml::ToFloat32(ml::LinearTransformation(normalized, transformer_.output));
    const Sampler atTemperatureOne(SamplingSettings{});
    std::vector<std::vector<TokenProbability>> out;
    for (int64_t row = 0; row < logits.dim(0); ++row)
        out.push_back(atTemperatureOne.topTokens(ml::Reshape(ml::Slice(logits, row, row + 1), {logits.dim(1)}), k));
    return out;
}

}  // namespace llama
