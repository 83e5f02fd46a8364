#include "model/llama_feed_forward.h"

#include <fmt/format.h>

#include "ml/ops.h"

namespace llama {

LlamaFeedForward::LlamaFeedForward(const Model& model, int layerIndex)
    : LayerIndex(layerIndex), FFNHiddenDim(model.args.ffnHiddenDim()) {
    const int dim = model.args.dim;
    ffn_gate = model.tensor(fmt::format("layers.{}.feed_forward.w1.weight", layerIndex), {FFNHiddenDim, dim});
    ffn_down = model.tensor(fmt::format("layers.{}.feed_forward.w2.weight", layerIndex), {dim, FFNHiddenDim});
    ffn_up = model.tensor(fmt::format("layers.{}.feed_forward.w3.weight", layerIndex), {FFNHiddenDim, dim});
}

Tensor LlamaFeedForward::Forward(InferenceContext& ctx, const Tensor& x, int startPos) const {
    const int L = LayerIndex;
    Tensor h = ml::LinearTransformation(x, ffn_gate);
    ctx.emit(StageId::FfnGate, L, startPos, [&] {
        return fmt::format("Calling ml.LinearTransformation for x {} and LlamaFeedForward.ffn_gate weights {} -> tensor h", x.shapeStr(),
                           ffn_gate.shapeStr());
    }, {{"h", &h}});

    h = ml::Silu(h);
    ctx.emit(StageId::FfnSilu, L, startPos, [&] { return fmt::format("Calling ml.Silu for h {} -> tensor h", h.shapeStr()); },
             {{"h", &h}});

    Tensor ffnUpX = ml::LinearTransformation(x, ffn_up);
    ctx.emit(StageId::FfnUp, L, startPos, [&] {
        return fmt::format("Calling ml.LinearTransformation for x {} and LlamaFeedForward.ffn_up weights {} -> tensor ffnUpX",
                           x.shapeStr(), ffn_up.shapeStr());
    }, {{"ffnUpX", &ffnUpX}});

    h = ml::MultiplyElementwise(h, ffnUpX);
    ctx.emit(StageId::FfnMultiply, L, startPos, [&] {
        return fmt::format("Calling ml.MultiplyElementwise for h {} and ffnUpX weights {} -> tensor ffnUpX", h.shapeStr(),
                           ffnUpX.shapeStr());
    }, {{"h", &h}});

    Tensor output = ml::LinearTransformation(h, ffn_down);
    ctx.emit(StageId::FfnDown, L, startPos, [&] {
        return fmt::format("Calling ml.LinearTransformation for h {} and LlamaFeedForward.ffn_down weights {} -> tensor output",
                           h.shapeStr(), ffn_down.shapeStr());
    }, {{"output", &output}});
    return output;
}

}  // namespace llama
