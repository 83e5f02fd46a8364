// LlamaTransformerBlock's backward pass: the two residual branches undone, feed-forward first.
// A residual connection copies its input into the sum, so its gradient reaches the input
// unchanged and adds to what comes back through the branch.
#include "ml/backward_ops.h"
#include "ml/ops.h"
#include "model/llama_transformer_block.h"
#include "model/forward_tape.h"
#include "model/gradient_norms.h"
#include "model/gradients.h"

namespace llama {

Tensor LlamaTransformerBlock::Backward(InferenceContext& ctx, const BlockTape& saved, const Tensor& dOutput, const Tensor& freqsCis, Gradients& grads) const {
    const auto here = ctx.at(LayerIndex, Position(0), Cell(0));

    // Stages 18 to 16 backward: output = h + feedForward(ffn_norm(h)).
    Tensor dNormalizedH = feedForward.Backward(ctx, saved, dOutput, grads);
    auto [dNormInput, dFfnNorm] = ml::RMSNormBackward(saved.h, ffn_norm.weights, dNormalizedH, ffn_norm.epsilon);
    ml::AccumulateInto(grads.of(ffn_norm.weights), dFfnNorm);
    Tensor dH = ml::Add(dOutput, dNormInput);
    ctx.stage(marks::FfnNormBackward{.dNormalizedH = dNormalizedH, .ffn_norm = ffn_norm.weights, .dH = dH, .dFfnNorm = grads.of(ffn_norm.weights), .norms = normsOf("dH", dH, "dFfnNorm", grads.of(ffn_norm.weights))});

    // Stages 15 to 6 backward: h = x + attention(attn_norm(x)).
    Tensor dNormalizedX = attention.Backward(ctx, saved, dH, freqsCis, grads);
    auto [dAttnNormInput, dAttnNorm] = ml::RMSNormBackward(saved.x, attn_norm.weights, dNormalizedX, attn_norm.epsilon);
    ml::AccumulateInto(grads.of(attn_norm.weights), dAttnNorm);
    Tensor dX = ml::Add(dH, dAttnNormInput);
    ctx.stage(marks::AttentionNormBackward{.dNormalizedX = dNormalizedX, .attn_norm = attn_norm.weights, .dX = dX, .dAttnNorm = grads.of(attn_norm.weights), .norms = normsOf("dX", dX, "dAttnNorm", grads.of(attn_norm.weights))});
    return dX;
}

}  // namespace llama
