// LlamaAttention's backward pass: Forward's stages 14 down to 8, each undone in turn. Where the
// forward pass made a value from two others (scores from xq and keys), the backward pass gives
// each of the two its share of the gradient.
#include <cmath>

#include "ml/backward_ops.h"
#include "ml/ops.h"
#include "model/llama_attention.h"
#include "model/lora.h"
#include "model/rope.h"
#include "model/forward_tape.h"
#include "model/gradient_norms.h"
#include "model/gradients.h"

namespace llama {

Tensor LlamaAttention::Backward(InferenceContext& ctx, const BlockTape& saved, const Tensor& dOutput, const Tensor& freqsCis, Gradients& grads) const {
    const int64_t sequenceLength = dOutput.dim(0);

    // Stage 14 backward: output = attention · attn_woᵀ, so dAttention = dOutput · attn_wo, and
    // attn_wo's gradient is dOutputᵀ · attention. Then the heads apart again, heads first.
    Tensor dAttention = ml::LinearBackwardInput(dOutput, attn_wo);
    ml::LinearBackwardWeights(grads.of(attn_wo), dOutput, saved.attention);
    addLoraBackward(ctx, "attn_wo", attn_wo_lora, dOutput, saved.attention, dAttention, grads);
    ctx.stage(marks::AttentionWoBackward{.dOutput = dOutput, .attn_wo = attn_wo, .dAttention = dAttention, .dAttnWo = grads.of(attn_wo), .norms = normsOf("dAttention", dAttention, "dAttnWo", grads.of(attn_wo))});
    Tensor dHeads = ml::Contiguous(ml::Transpose(ml::Reshape(dAttention, {sequenceLength, N_Heads, HeadDim}), 0, 1));  // [N_Heads, seqLen, HeadDim]

    // Stage 14 backward: output = scores · values, so dScores = dHeads · valuesᵀ and
    // dValues = scoresᵀ · dHeads (each query head's values: the repeated KV heads, as in Forward).
    Tensor values = ml::Transpose(attentionRepeatKV(saved.xv, N_Rep), 0, 1);         // [N_Heads, seqLen, HeadDim]
    Tensor dScores = ml::MatMul(dHeads, ml::Transpose(values, 1, 2));                // [N_Heads, seqLen, seqLen]
    Tensor dValues = ml::MatMul(ml::Transpose(saved.scores, 1, 2), dHeads);          // [N_Heads, seqLen, HeadDim]
    ctx.stage(marks::AttentionValuesBackward{.dHeads = dHeads, .scores = saved.scores, .dScores = dScores, .dValues = dValues, .norms = normsOf("dScores", dScores, "dValues", dValues)});

    // Stage 13 backward: the softmax. A masked score has weight 0, so it gets no gradient: the
    // mask, a constant, has nothing to learn and nothing to pass on.
    dScores = ml::SoftmaxBackward(saved.scores, dScores);
    ctx.stage(marks::ScoresSoftmaxBackward{.scores = saved.scores, .dScores = dScores, .norms = normsOf("dScores", dScores)});

    // Stage 13 backward: scores were divided by sqrt(HeadDim); so is their gradient.
    Tensor dXqMatMulKeys = ml::DivToScalar(dScores, std::sqrt(float(HeadDim)));
    ctx.stage(marks::ScoresScaleBackward{.dScores = dScores, .dXqMatMulKeys = dXqMatMulKeys, .norms = normsOf("dXqMatMulKeys", dXqMatMulKeys)});

    // Stage 13 backward: xqMatMulKeys = xq · keysᵀ, so dXq = dXqMatMulKeys · keys and
    // dKeys = dXqMatMulKeysᵀ · xq.
    Tensor xq = ml::Transpose(saved.xq, 0, 1);                                       // [N_Heads, seqLen, HeadDim]
    Tensor keys = ml::Transpose(attentionRepeatKV(saved.xk, N_Rep), 0, 1);           // [N_Heads, seqLen, HeadDim]
    Tensor dXq = ml::MatMul(dXqMatMulKeys, keys);
    Tensor dKeys = ml::MatMul(ml::Transpose(dXqMatMulKeys, 1, 2), xq);
    ctx.stage(marks::ScoresMatMulBackward{.dXqMatMulKeys = dXqMatMulKeys, .dXq = dXq, .dKeys = dKeys, .norms = normsOf("dXq", dXq, "dKeys", dKeys)});

    // Stage 11 backward: attentionRepeatKV gave each KV head to N_Rep query heads, so a KV head's
    // gradient is the sum of theirs.
    dKeys = ml::SumRepeated(dKeys, 0, N_Rep);      // [N_KVHeads, seqLen, HeadDim]
    dValues = ml::SumRepeated(dValues, 0, N_Rep);
    ctx.stage(marks::RepeatKVBackward{.dKeys = dKeys, .dValues = dValues, .norms = normsOf("dKeys", dKeys, "dValues", dValues)}, skippedIf(N_Rep == 1));

    // Stage 10 backward: positions first again, then each rotation undone (the conjugate angle).
    // Values were not rotated.
    dXq = applyRotaryEmbeddingBackward(ml::Contiguous(ml::Transpose(dXq, 0, 1)), freqsCis);    // [seqLen, N_Heads, HeadDim]
    Tensor dXk = applyRotaryEmbeddingBackward(ml::Contiguous(ml::Transpose(dKeys, 0, 1)), freqsCis);
    Tensor dXv = ml::Contiguous(ml::Transpose(dValues, 0, 1));
    ctx.stage(marks::RotaryBackward{.dXq = dXq, .dXk = dXk, .norms = normsOf("dXq", dXq, "dXk", dXk)});

    // Stages 9 and 8 backward: the heads joined, then the three projections. x fed all three, so
    // its gradient is the sum of the three; each matrix's gradient is its dᵀ · x.
    dXq = ml::Reshape(dXq, {sequenceLength, N_Heads * HeadDim});
    dXk = ml::Reshape(dXk, {sequenceLength, N_KVHeads * HeadDim});
    dXv = ml::Reshape(dXv, {sequenceLength, N_KVHeads * HeadDim});
    Tensor dX = ml::LinearBackwardInput(dXq, attn_wq);
    ml::AddLinearBackwardInput(dX, dXk, attn_wk);
    ml::AddLinearBackwardInput(dX, dXv, attn_wv);
    ml::LinearBackwardWeights({{grads.of(attn_wq), dXq}, {grads.of(attn_wk), dXk}, {grads.of(attn_wv), dXv}}, saved.normalizedX);
    addLoraBackward(ctx, "attn_wq", attn_wq_lora, dXq, saved.normalizedX, dX, grads);
    addLoraBackward(ctx, "attn_wk", attn_wk_lora, dXk, saved.normalizedX, dX, grads);
    addLoraBackward(ctx, "attn_wv", attn_wv_lora, dXv, saved.normalizedX, dX, grads);
    ctx.stage(marks::QKVBackward{.dXq = dXq, .dXk = dXk, .dXv = dXv, .dX = dX, .dAttnWq = grads.of(attn_wq), .dAttnWk = grads.of(attn_wk), .dAttnWv = grads.of(attn_wv),
                                      .norms = normsOf("dX", dX, "dAttnWq", grads.of(attn_wq), "dAttnWk", grads.of(attn_wk), "dAttnWv", grads.of(attn_wv))});
    return dX;
}

}  // namespace llama
