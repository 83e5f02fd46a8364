#include "model/llama_transformer_block.h"

#include <fmt/format.h>

#include "ml/ops.h"

namespace llama {

LlamaTransformerBlock::LlamaTransformerBlock(const Model& model, int layerIndex)
    : LayerIndex(layerIndex),
      N_Layers(model.args.n_layers),
      attn_norm(float(model.args.norm_eps), model.tensor(fmt::format("layers.{}.attention_norm.weight", layerIndex), {model.args.dim})),
      ffn_norm(float(model.args.norm_eps), model.tensor(fmt::format("layers.{}.ffn_norm.weight", layerIndex), {model.args.dim})),
      attention(model, layerIndex),
      feedForward(model, layerIndex) {}

Tensor LlamaTransformerBlock::Forward(InferenceContext& ctx, const Tensor& x, int startPos, const Tensor& freqsCis,
                                      const std::optional<Tensor>& mask) const {
    const int L = LayerIndex;
    auto maskStr = [&] { return mask ? mask->shapeStr() : std::string("shape([])"); };
    // Stage 5: into the block.
    ctx.emit(StageId::BlockForward, L, startPos, [&] {
        return fmt::format("Calling LlamaTransformerBlock.Forward for layer: {} / {}, startPos: {} -> tensor currentTensor\n"
                           "LlamaTransformerBlock.Forward started for x: {}, startPos: {}, freqsCis: {}, mask: {}",
                           L + 1, N_Layers, startPos, x.shapeStr(), startPos, freqsCis.shapeStr(), maskStr());
    }, {{"x", &x}});

    // Stage 6: attention pre-normalization.
    Tensor normalizedX = attn_norm.Forward(x);
    ctx.emit(StageId::AttentionNorm, L, startPos, [&] {
        return fmt::format("Calling RMSNorm for tensor x {} and LlamaTransformerBlock.attn_norm weights {} -> tensor normalizedX",
                           x.shapeStr(), attn_norm.weights.shapeStr());
    }, {{"normalizedX", &normalizedX}});

    // Stage 7: the attention module (stages 8-14 happen inside).
    ctx.emit(StageId::AttentionForward, L, startPos, [&] {
        return fmt::format("Calling LlamaAttention.Forward for tensor normalizedX {} and startPos: {}, freqsCis: {}, mask: {} -> tensor h",
                           normalizedX.shapeStr(), startPos, freqsCis.shapeStr(), maskStr());
    }, {{"normalizedX", &normalizedX}});
    Tensor h = attention.Forward(ctx, normalizedX, startPos, freqsCis, mask);

    // Stage 15: residual connection around attention.
    h = ml::Add(x, h);
    ctx.emit(StageId::AttentionResidual, L, startPos, [&] {
        return fmt::format("Calling ml.Add to calculate x {} + h {} -> tensor h", x.shapeStr(), h.shapeStr());
    }, {{"h", &h}});

    // Stage 16: feed-forward pre-normalization.
    Tensor normalizedH = ffn_norm.Forward(h);
    ctx.emit(StageId::FfnNorm, L, startPos, [&] {
        return fmt::format("Calling RMSNorm for tensor h {} and LlamaTransformerBlock.ffn_norm weights {} -> tensor normalizedH",
                           h.shapeStr(), ffn_norm.weights.shapeStr());
    }, {{"normalizedH", &normalizedH}});

    // Stage 17: the feed-forward module.
    Tensor ffnOutput = feedForward.Forward(ctx, normalizedH, startPos);

    // Stage 18: residual connection around the feed-forward.
    Tensor output = ml::Add(h, ffnOutput);
    ctx.emit(StageId::FfnResidual, L, startPos, [&] {
        return fmt::format("Calling ml.Add to calculate h {} + ffnOutput {} -> tensor output\nReturning tensor output: {}", h.shapeStr(),
                           ffnOutput.shapeStr(), output.shapeStr());
    }, {{"output", &output}});
    return output;
}

}  // namespace llama
