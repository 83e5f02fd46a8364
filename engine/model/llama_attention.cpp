#include "model/llama_attention.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <future>

#include "ml/op_profile.h"
#include "ml/ops.h"

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
}

Tensor LlamaAttention::Forward(InferenceContext& ctx, const Tensor& x, int startPos, const Tensor& freqsCis,
                               const std::optional<Tensor>& mask) const {
    const int64_t sequenceLength = x.dim(0);
    const int L = LayerIndex;

    // Stage 8: xq, xk, xv. The walkthrough runs these as three goroutines; here they are three
    // std::async tasks (the log keeps the walkthrough's words so the two can be diffed).
    auto xqTask = std::async(std::launch::async, [&] { return ml::LinearTransformation(x, attn_wq); });
    auto xkTask = std::async(std::launch::async, [&] { return ml::LinearTransformation(x, attn_wk); });
    auto xvTask = std::async(std::launch::async, [&] { return ml::LinearTransformation(x, attn_wv); });
    Tensor xq = xqTask.get();
    Tensor xk = xkTask.get();
    Tensor xv = xvTask.get();
    ctx.emit(StageId::QKV, L, startPos, [&] {
        std::string s;
        for (auto [w, wName, out] : {std::tuple{&attn_wq, "attn_wq", "xq"}, {&attn_wk, "attn_wk", "xk"}, {&attn_wv, "attn_wv", "xv"}})
            s += fmt::format("[Scheduling goroutine] ml.LinearTransformation for x {} and LlamaAttention.{} weights {} -> tensor {}\n",
                             x.shapeStr(), wName, w->shapeStr(), out);
        return s + fmt::format("Parallel results, xq: {}, xk: {}, xv: {}", xq.shapeStr(), xk.shapeStr(), xv.shapeStr());
    }, {{"xq", &xq}, {"xk", &xk}, {"xv", &xv}});

    // Stage 9: split the last dimension into heads.
    xq = ml::Reshape(xq, {sequenceLength, N_Heads, HeadDim});
    xk = ml::Reshape(xk, {sequenceLength, N_KVHeads, HeadDim});
    xv = ml::Reshape(xv, {sequenceLength, N_KVHeads, HeadDim});
    ctx.emit(StageId::ReshapeHeads, L, startPos, [&] {
        return fmt::format("Reshaping results, xq: {}, xk: {}, xv: {}", xq.shapeStr(), xk.shapeStr(), xv.shapeStr());
    }, {{"xq", &xq}, {"xk", &xk}, {"xv", &xv}});

    // Stage 10: rotary embeddings on queries and keys (values are not rotated).
    std::tie(xq, xk) = applyRotaryEmbeddings(xq, xk, freqsCis);
    ctx.emit(StageId::Rotary, L, startPos, [&] {
        return fmt::format("applyRotaryEmbeddings results, xq: {}, xk: {}", xq.shapeStr(), xk.shapeStr());
    }, {{"xq", &xq}, {"xk", &xk}});

    // Stage 11: remember this step's keys and values, then read back everything cached so far.
    Tensor& cacheK = ctx.CacheK[L];
    Tensor& cacheV = ctx.CacheV[L];
    ml::SetSlice(cacheK, startPos, xk);
    ml::SetSlice(cacheV, startPos, xv);
    ctx.emit(StageId::CacheWrite, L, startPos, [&] {
        return fmt::format("Writing xk {} and xv {} into CacheK[{}] and CacheV[{}] {} at positions [{}, {})", xk.shapeStr(),
                           xv.shapeStr(), L, L, cacheK.shapeStr(), startPos, startPos + sequenceLength);
    }, {{"xk", &xk}, {"xv", &xv}});

    Tensor keys = ml::Slice(cacheK, 0, startPos + sequenceLength);
    Tensor values = ml::Slice(cacheV, 0, startPos + sequenceLength);
    ctx.emit(StageId::CacheRead, L, startPos, [&] {
        return fmt::format("Reading cached positions [0, {}): keys: {}, values: {}", startPos + sequenceLength, keys.shapeStr(),
                           values.shapeStr());
    }, {{"keys", &keys}, {"values", &values}});

    keys = attentionRepeatKV(keys, N_Rep);
    values = attentionRepeatKV(values, N_Rep);
    ctx.emit(StageId::RepeatKV, L, startPos, [&] {
        if (N_Rep == 1) return fmt::format("attentionRepeatKV skipped: N_Rep = 1 (N_KVHeads = N_Heads = {}), keys: {}, values: {}",
                                           N_Heads, keys.shapeStr(), values.shapeStr());
        return fmt::format("attentionRepeatKV with N_Rep = {} ({} query heads / {} KV heads), keys: {}, values: {}", N_Rep,
                           N_Heads, N_KVHeads, keys.shapeStr(), values.shapeStr());
    }, {{"keys", &keys}, {"values", &values}});

    // Stage 12: heads first, so each head is one matrix product.
    xq = ml::Transpose(xq, 0, 1);          // [N_Heads, seqLen, HeadDim]
    keys = ml::Transpose(keys, 0, 1);      // [N_Heads, startPos+seqLen, HeadDim]
    values = ml::Transpose(values, 0, 1);  // [N_Heads, startPos+seqLen, HeadDim]
    keys = ml::Transpose(keys, 1, 2);      // [N_Heads, HeadDim, startPos+seqLen]
    ctx.emit(StageId::Transposes, L, startPos, [&] {
        return fmt::format("Multiple transposing results, xq: {}, keys: {}, values: {}", xq.shapeStr(), keys.shapeStr(),
                           values.shapeStr());
    }, {{"xq", &xq}, {"keys", &keys}, {"values", &values}});

    // Stage 13: scores = softmax(xq · keys / sqrt(HeadDim) + mask).
    Tensor xqMatMulKeys = ml::MatMul(xq, keys);  // [N_Heads, seqLen, startPos+seqLen]
    ctx.emit(StageId::ScoresMatMul, L, startPos, [&] {
        return fmt::format("Calling ml.MatMul for xq {} and keys {} -> tensor xqMatMulKeys", xq.shapeStr(), keys.shapeStr());
    }, {{"xqMatMulKeys", &xqMatMulKeys}});

    // The walkthrough divides by sqrt(HeadDim) rounded to bfloat16.
    Tensor scores = ml::DivToScalar(xqMatMulKeys, roundToBF16(std::sqrt(float(HeadDim))));
    ctx.emit(StageId::ScoresScale, L, startPos, [&] {
        return fmt::format("Calling ml.DivToScalar for xqMatMulKeys {} and scalar -> tensor scores", xqMatMulKeys.shapeStr());
    }, {{"scores", &scores}});

    if (mask) scores = ml::Add(scores, *mask);
    ctx.emit(StageId::ScoresMask, L, startPos, [&] {
        if (!mask) return std::string("Skipping addition scores + mask");
        return fmt::format("Calling ml.Add to calculate scores {} + mask {} -> tensor scores", scores.shapeStr(), mask->shapeStr());
    }, {{"scores", &scores}});

    scores = ml::ToFloat32(scores);
    scores = ml::Softmax(scores, int(scores.rank()) - 1);
    scores = ml::ToBFloat16(scores);
    ctx.emit(StageId::ScoresSoftmax, L, startPos, [&] {
        return fmt::format("Converting scores tensor {} to Float32 tensor -> tensor scores\n"
                           "Calling ml.Softmax for scores {} and dim {} -> tensor scores\n"
                           "Converting scores tensor {} to BFloat16 tensor -> tensor scores",
                           scores.shapeStr(), scores.shapeStr(), scores.rank() - 1, scores.shapeStr());
    }, {{"scores", &scores}});

    // Stage 14: weight the values by the scores, heads back together, project with attn_wo.
    Tensor output = ml::MatMul(scores, values);  // [N_Heads, seqLen, HeadDim]
    ctx.emit(StageId::AttentionValues, L, startPos, [&] {
        return fmt::format("Calling ml.MatMul for scores {} and values {} -> tensor output", scores.shapeStr(), values.shapeStr());
    }, {{"output", &output}});

    output = ml::Transpose(output, 0, 1);  // [seqLen, N_Heads, HeadDim]
    output = ml::Reshape(output, {sequenceLength, output.numel() / sequenceLength});
    ctx.emit(StageId::AttentionReshape, L, startPos, [&] {
        return fmt::format("Transposing and reshaping output -> tensor output {}", output.shapeStr());
    }, {{"output", &output}});

    Tensor projected = ml::LinearTransformation(output, attn_wo);
    ctx.emit(StageId::AttentionWo, L, startPos, [&] {
        return fmt::format("Calling ml.LinearTransformation for output {} and LlamaAttention.attn_wo weights {} -> tensor output\n"
                           "Returning tensor output: {}",
                           output.shapeStr(), attn_wo.shapeStr(), projected.shapeStr());
    }, {{"output", &projected}});
    return projected;
}

std::pair<Tensor, Tensor> applyRotaryEmbeddings(const Tensor& xq, const Tensor& xk, const Tensor& freqsCis) {
    const ml::OpScope profile(ml::OpKind::RoPE);
    const Shape& qShape = xq.shape();
    const Shape& kShape = xk.shape();
    // xq [seqLen, N_Heads, HeadDim] BF16 -> F32 -> complex [seqLen, N_Heads, HeadDim/2]
    Tensor xq_ = ml::ViewAsComplex64WithReshape(ml::ToFloat32(xq), {qShape[0], qShape[1], qShape[2] / 2});
    Tensor xk_ = ml::ViewAsComplex64WithReshape(ml::ToFloat32(xk), {kShape[0], kShape[1], kShape[2] / 2});
    // freqs_cis [seqLen, HeadDim/2] -> [seqLen, 1, HeadDim/2] so it broadcasts over the heads.
    Tensor freqs = ml::Reshape(freqsCis, {qShape[0], 1, qShape[2] / 2});
    Tensor xqOut = ml::ToBFloat16(ml::ViewAsFloat32WithReshape(ml::MultiplyElementwise(xq_, freqs), qShape));
    Tensor xkOut = ml::ToBFloat16(ml::ViewAsFloat32WithReshape(ml::MultiplyElementwise(xk_, freqs), kShape));
    return {xqOut, xkOut};
}

Tensor attentionRepeatKV(const Tensor& x, int N_Rep) {
    const ml::OpScope profile(ml::OpKind::RepeatKV);
    if (N_Rep == 1) return x;
    const int64_t sequenceLength = x.dim(0), n_KVHeads = x.dim(1), headDim = x.dim(2);
    Shape expandedShape{sequenceLength, n_KVHeads * N_Rep, headDim};
    if (!x.hasData()) return Tensor::shapeOnly(expandedShape, x.dtype());
    // An explicit copy loop, as in the walkthrough: row (i, j) goes to heads j*N_Rep .. j*N_Rep+N_Rep-1.
    Tensor expanded = Tensor::uninitialized(expandedShape, x.dtype());
    const size_t rowBytes = size_t(headDim) * dtypeSize(x.dtype());
    const auto* src = static_cast<const std::byte*>(x.rawData());
    auto* dst = expanded.mutableData<std::byte>();
    for (int64_t i = 0; i < sequenceLength; ++i)
        for (int64_t j = 0; j < n_KVHeads; ++j)
            for (int rep = 0; rep < N_Rep; ++rep)
                std::memcpy(dst + ((i * n_KVHeads + j) * N_Rep + rep) * rowBytes, src + (i * n_KVHeads + j) * rowBytes, rowBytes);
    return expanded;
}

}  // namespace llama
