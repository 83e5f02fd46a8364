#include "model/llama_transformer_block.h"

#include <fmt/format.h>

#include "ml/ops.h"

namespace llama {

LlamaTransformerBlock::LlamaTransformerBlock(const Model& model, int layerIndex)
    : LayerIndex(layerIndex),
      attn_norm(float(model.args.norm_eps), model.tensor(fmt::format("layers.{}.attention_norm.weight", layerIndex), {model.args.dim})),
      ffn_norm(float(model.args.norm_eps), model.tensor(fmt::format("layers.{}.ffn_norm.weight", layerIndex), {model.args.dim})),
      attention(model, layerIndex),
      feedForward(model, layerIndex) {}

Tensor LlamaTransformerBlock::Forward(InferenceContext& ctx, const Tensor& x, const PassPositions& pass, const Tensor* onlyRows) const {
    const auto here = ctx.at(LayerIndex, pass.startPos, pass.firstCell);
    // Stage 5: into the block.
    ctx.stage(marks::BlockForward{.x = x, .freqsCis = pass.freqsCis, .mask = pass.mask}, skippedIf(ctx.whatIf.skipsLayer(LayerIndex)));
    if (ctx.whatIf.skipsLayer(LayerIndex)) return x;  // what-if --skip-layer: the residual stream passes by

    // Stage 6: attention pre-normalization.
    Tensor normalizedX = attn_norm.Forward(x);
    ctx.stage(marks::AttentionNorm{.x = x, .attn_norm = attn_norm.weights, .normalizedX = normalizedX});

    // Stage 7: the attention module (stages 8-14 happen inside).
    ctx.stage(marks::AttentionForward{.normalizedX = normalizedX, .freqsCis = pass.freqsCis, .mask = pass.mask});
    Tensor h = attention.Forward(ctx, normalizedX, pass);
    // What-if patch: this position's attention output from another run (the patch command).
    if (const auto* patch = ctx.whatIf.patchAt(LayerIndex, ActivationPatch::Site::AttentionOutput)) h = patch->apply(h, pass.startPos);

    // Stage 15: residual connection around attention.
    h = ml::Add(x, h);
    ctx.stage(marks::AttentionResidual{.x = x, .h = h});
    // Every row's keys and values are cached by now; the rest of the block works on the rows that
    // go on, when the caller names them.
    if (onlyRows) h = ml::Fwd_Get_Rows(h, *onlyRows);

    // Stage 16: feed-forward pre-normalization.
    Tensor normalizedH = ffn_norm.Forward(h);
    ctx.stage(marks::FfnNorm{.h = h, .ffn_norm = ffn_norm.weights, .normalizedH = normalizedH});

    // Stage 17: the feed-forward module.
    ctx.stage(marks::FfnForward{.normalizedH = normalizedH});
    Tensor ffnOutput = feedForward.Forward(ctx, normalizedH);

    // Stage 18: residual connection around the feed-forward.
    Tensor output = ml::Add(h, ffnOutput);
    ctx.stage(marks::FfnResidual{.h = h, .ffnOutput = ffnOutput, .output = output});

    // What-if --control-vector: this layer's direction added to the block's output (llama.cpp's
    // control vectors), at every position.
    if (const Tensor* direction = ctx.whatIf.controlVectorFor(LayerIndex)) {
        Tensor steered = ml::Add(output, *direction);
        ctx.stage(marks::ControlVector{.output = output, .direction = *direction, .steered = steered, .norms = [&] { return steeringNorms(output, *direction); }});
        output = steered;
    }
    // What-if patch: this position's block output from another run (the patch command).
    if (const auto* patch = ctx.whatIf.patchAt(LayerIndex, ActivationPatch::Site::BlockOutput)) output = patch->apply(output, pass.startPos);
    return output;
}

}  // namespace llama
