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
    ffn_gate_lora = loraUpdatesOf(model.adapters, fmt::format("layers.{}.feed_forward.w1.weight", layerIndex));
    ffn_down_lora = loraUpdatesOf(model.adapters, fmt::format("layers.{}.feed_forward.w2.weight", layerIndex));
    ffn_up_lora = loraUpdatesOf(model.adapters, fmt::format("layers.{}.feed_forward.w3.weight", layerIndex));
}

Tensor LlamaFeedForward::Forward(InferenceContext& ctx, const Tensor& x) const {
    // A LoRA adapter's product (--lora) joins each result before its stage shows it.
    Tensor h = addLoraProducts(ctx, "ffn_gate", x, ml::LinearTransformation(x, ffn_gate), ffn_gate_lora);
    ctx.stage(marks::FfnGate{.x = x, .ffn_gate = ffn_gate, .h = h});

    h = ml::Silu(h);
    ctx.stage(marks::FfnSilu{.h = h});

    Tensor ffnUpX = addLoraProducts(ctx, "ffn_up", x, ml::LinearTransformation(x, ffn_up), ffn_up_lora);
    ctx.stage(marks::FfnUp{.x = x, .ffn_up = ffn_up, .ffnUpX = ffnUpX});

    h = ml::MultiplyElementwise(h, ffnUpX);
    ctx.stage(marks::FfnMultiply{.h = h, .ffnUpX = ffnUpX});

    Tensor output = addLoraProducts(ctx, "ffn_down", h, ml::LinearTransformation(h, ffn_down), ffn_down_lora);
    ctx.stage(marks::FfnDown{.h = h, .ffn_down = ffn_down, .output = output});
    return output;
}

}  // namespace llama
