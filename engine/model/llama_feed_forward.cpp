#include "model/llama_feed_forward.h"

#include <fmt/format.h>

#include "ml/ops.h"

namespace llama {

LlamaFeedForward::LlamaFeedForward(const Model& model, int layerIndex)
    : FFNHiddenDim(model.args.ffnHiddenDim()) {
    const int dim = model.args.dim;
    ffn_gate = model.tensor(fmt::format("layers.{}.feed_forward.w1.weight", layerIndex), {FFNHiddenDim, dim});
    ffn_down = model.tensor(fmt::format("layers.{}.feed_forward.w2.weight", layerIndex), {dim, FFNHiddenDim});
    ffn_up = model.tensor(fmt::format("layers.{}.feed_forward.w3.weight", layerIndex), {FFNHiddenDim, dim});
}

Tensor LlamaFeedForward::Forward(InferenceContext& ctx, const Tensor& x) const {
    Tensor h = ml::LinearTransformation(x, ffn_gate);
    ctx.stage(marks::FfnGate{.x = x, .ffn_gate = ffn_gate, .h = h});

    h = ml::Silu(h);
    ctx.stage(marks::FfnSilu{.h = h});

    Tensor ffnUpX = ml::LinearTransformation(x, ffn_up);
    ctx.stage(marks::FfnUp{.x = x, .ffn_up = ffn_up, .ffnUpX = ffnUpX});

    h = ml::MultiplyElementwise(h, ffnUpX);
    ctx.stage(marks::FfnMultiply{.h = h, .ffnUpX = ffnUpX});

    Tensor output = ml::LinearTransformation(h, ffn_down);
    ctx.stage(marks::FfnDown{.h = h, .ffn_down = ffn_down, .output = output});
    return output;
}

}  // namespace llama
