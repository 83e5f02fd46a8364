#include "model/llama_attention.h"

#include <fmt/format.h>

#include <cmath>
#include <future>

#include "ml/op_profile.h"
#include "ml/ops.h"
#include "ml/task_launch.h"
#include "model/lora.h"
#include "model/rope.h"

namespace llama {

namespace {
std::string layerName(int layer, const char* suffix) { return fmt::format("layers.{}.{}", layer, suffix); }
}  // namespace

LlamaAttention::LlamaAttention(const Model& model, int layerIndex)
    : LayerIndex(layerIndex),
      N_Heads(model.args.n_heads),
      N_KVHeads(model.args.n_kv_heads),
      N_Rep(model.args.nRep()),
      HeadDim(model.args.headDim()) {
    const int dim = model.args.dim;
    attn_wq = model.tensor(layerName(layerIndex, "attention.wq.weight"), {N_Heads * HeadDim, dim});
    attn_wk = model.tensor(layerName(layerIndex, "attention.wk.weight"), {N_KVHeads * HeadDim, dim});
    attn_wv = model.tensor(layerName(layerIndex, "attention.wv.weight"), {N_KVHeads * HeadDim, dim});
    attn_wo = model.tensor(layerName(layerIndex, "attention.wo.weight"), {dim, N_Heads * HeadDim});
    attn_wq_lora = loraUpdatesOf(model.adapters, layerName(layerIndex, "attention.wq.weight"));
    attn_wk_lora = loraUpdatesOf(model.adapters, layerName(layerIndex, "attention.wk.weight"));
    attn_wv_lora = loraUpdatesOf(model.adapters, layerName(layerIndex, "attention.wv.weight"));
    attn_wo_lora = loraUpdatesOf(model.adapters, layerName(layerIndex, "attention.wo.weight"));
}

Tensor LlamaAttention::Forward(InferenceContext& ctx, const Tensor& x, const PassPositions& pass) const {
    const int64_t sequenceLength = x.dim(0);
    const int firstCell = pass.firstCell.value;
    const int64_t endCell = firstCell + sequenceLength;
    // The log names the rows as one sequence knows them, positions; a batch's are cells.
    const char* rows = pass.oneSequence ? "positions" : "cells";

    // Stage 8: xq, xk, xv. The walkthrough runs these as three goroutines; here they are three
    // std::async tasks (ml/task_launch.h says how the browser build runs them; the log keeps the
    // walkthrough's words so the two can be diffed). Each is
    // marked when scheduled and again from inside the task when it starts, as the goroutines log.
    // The scope outlives the three futures: a Stop at the second launch waits for the first task.
    ml::TaskScope qkvTasks;
    // A LoRA adapter's product (--lora) is added inside the task, to its result, before the QKV stage shows it.
    auto schedule = [&](const char* weightsName, const ml::LinearWeights& weights, const LoraUpdates& lora, const char* target) {
        ctx.stage(marks::QKVSchedule{.x = x, .weightsName = weightsName, .weights = weights, .target = target});
        return qkvTasks.launch([&ctx, &x, &weights, &lora, weightsName, target] {
            ctx.stage(marks::QKVTask{.x = x, .weightsName = weightsName, .weights = weights, .target = target});
            return addLoraProducts(ctx, weightsName, x, ml::LinearTransformation(x, weights), lora);
        });
    };
    auto xqTask = schedule("attn_wq", attn_wq, attn_wq_lora, "xq");
    auto xkTask = schedule("attn_wk", attn_wk, attn_wk_lora, "xk");
    auto xvTask = schedule("attn_wv", attn_wv, attn_wv_lora, "xv");
    Tensor xq = xqTask.get();
    Tensor xk = xkTask.get();
    Tensor xv = xvTask.get();
    ctx.stage(marks::QKV{.xq = xq, .xk = xk, .xv = xv});

    // Stage 9: split the last dimension into heads.
    xq = ml::Reshape(xq, {sequenceLength, N_Heads, HeadDim});
    xk = ml::Reshape(xk, {sequenceLength, N_KVHeads, HeadDim});
    xv = ml::Reshape(xv, {sequenceLength, N_KVHeads, HeadDim});
    ctx.stage(marks::ReshapeHeads{.xq = xq, .xk = xk, .xv = xv});

    // Stage 10: rotary embeddings on queries and keys (values are not rotated).
    // What-if --no-rope: not rotated, so attention cannot tell positions apart.
    if (!ctx.whatIf.noRope) std::tie(xq, xk) = applyRotaryEmbeddings(xq, xk, pass.freqsCis);
    ctx.stage(marks::Rotary{.xq = xq, .xk = xk}, skippedIf(ctx.whatIf.noRope));

    // Stage 11: remember this step's keys and values, then read back everything cached so far.
    Tensor& cacheK = ctx.CacheK[LayerIndex];
    Tensor& cacheV = ctx.CacheV[LayerIndex];
    ctx.prepareCacheRows(LayerIndex, std::max<int64_t>(endCell, pass.nKV));
    ml::SetSlice(cacheK, firstCell, xk);
    ml::SetSlice(cacheV, firstCell, xv);
    ctx.stage(marks::CacheWrite{.xk = xk, .xv = xv, .cacheK = cacheK, .rows = rows, .firstCell = firstCell, .endCell = endCell});

    Tensor keys = ml::Slice(cacheK, 0, pass.nKV);
    Tensor values = ml::Slice(cacheV, 0, pass.nKV);
    ctx.stage(marks::CacheRead{.keys = keys, .values = values, .rows = rows, .endCell = pass.nKV});

    keys = attentionRepeatKV(keys, N_Rep);
    values = attentionRepeatKV(values, N_Rep);
    ctx.stage(marks::RepeatKV{.keys = keys, .values = values}, skippedIf(N_Rep == 1));

    // Stage 12: heads first, so each head is one matrix product.
    xq = ml::Transpose(xq, 0, 1);          // [N_Heads, seqLen, HeadDim]
    keys = ml::Transpose(keys, 0, 1);      // [N_Heads, startPos+seqLen, HeadDim]
    values = ml::Transpose(values, 0, 1);  // [N_Heads, startPos+seqLen, HeadDim]
    keys = ml::Transpose(keys, 1, 2);      // [N_Heads, HeadDim, startPos+seqLen]
    ctx.stage(marks::Transposes{.xq = xq, .keys = keys, .values = values});

    // Stage 13: scores = softmax(xq · keys / sqrt(HeadDim) + mask).
    Tensor xqMatMulKeys = ml::MatMul(xq, keys);  // [N_Heads, seqLen, startPos+seqLen]
    ctx.stage(marks::ScoresMatMul{.xq = xq, .keys = keys, .xqMatMulKeys = xqMatMulKeys});

    // The walkthrough (a BF16 run) divides by sqrt(HeadDim) rounded to bfloat16.
    const bool bf16 = x.dtype() == DType::BF16;
    Tensor scores = ml::DivToScalar(xqMatMulKeys, bf16 ? roundToBF16(std::sqrt(float(HeadDim))) : std::sqrt(float(HeadDim)));
    ctx.stage(marks::ScoresScale{.xqMatMulKeys = xqMatMulKeys, .scores = scores});

    if (pass.mask) scores = ml::Add(scores, *pass.mask);
    ctx.stage(marks::ScoresMask{.scores = scores, .mask = pass.mask}, skippedIf(!pass.mask));

    // A BF16 run takes softmax in F32 and rounds the result back; an F32 run has nothing to convert.
    if (bf16) scores = ml::ToFloat32(scores);
    scores = ml::Softmax(scores, int(scores.rank()) - 1);
    if (bf16) scores = ml::ToBFloat16(scores);
    ctx.stage(marks::ScoresSoftmax{.scores = scores, .dim = int64_t(scores.rank()) - 1}, skippedIf(!bf16));

    // Stage 14: weight the values by the scores, heads back together, project with attn_wo.
    Tensor output = ml::MatMul(scores, values);  // [N_Heads, seqLen, HeadDim]
    // What-if --ablate-head: the chosen heads of this layer contribute nothing.
    for (int head : ctx.whatIf.headsAblatedIn(LayerIndex)) ml::SetSlice(output, head, ml::Full({1, sequenceLength, HeadDim}, output.dtype(), 0));
    ctx.stage(marks::AttentionValues{.scores = scores, .values = values, .output = output});

    output = ml::Transpose(output, 0, 1);  // [seqLen, N_Heads, HeadDim]
    output = ml::Reshape(output, {sequenceLength, output.numel() / sequenceLength});
    ctx.stage(marks::AttentionReshape{.output = output});

    output = addLoraProducts(ctx, "attn_wo", output, ml::LinearTransformation(output, attn_wo), attn_wo_lora);
    ctx.stage(marks::AttentionWo{.output = output, .attn_wo = attn_wo});
    return output;
}

Tensor attentionRepeatKV(const Tensor& x, int N_Rep) {
    const ml::OpScope profile(ml::OpKind::RepeatKV);
    if (N_Rep == 1) return x;
    // Query head h reads KV head h / N_Rep: heads j*N_Rep .. j*N_Rep+N_Rep-1 all read KV head j.
    // The walkthrough copies each row N_Rep times; here the repeated heads are a view of the
    // same bytes (observers are shown the copy), as a copy of 16 MB per layer at 2,000 positions
    // cost more than the attention products.
    return ml::RepeatInterleave(x, 1, N_Rep);
}

}  // namespace llama
