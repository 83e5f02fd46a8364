#include "model/llama_transformer.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

#include "ml/ops.h"
#include "model/rope.h"

namespace llama {

LlamaTransformer::LlamaTransformer(const Model& model, const WhatIf& whatIf)
    : args(model.args),
      ComputeDType(computeDTypeOf(model, whatIf)),
      tok_embd(model.tensor("tok_embeddings.weight", {model.args.vocab_size, model.args.dim})),
      output_norm(float(model.args.norm_eps), model.tensor("norm.weight", {model.args.dim})),
      output(model.tensor("output.weight", {model.args.vocab_size, model.args.dim})) {
    for (int i = 0; i < args.n_layers; ++i) Layers.emplace_back(model, i);
    // As Meta: twice the context length, so positions past max_seq_len still have angles.
    // What-if --rope-theta X: the angles of another base frequency.
    PrecomputedFreqsCis = precomputeFreqsCis(args.headDim(), args.max_seq_len * 2, whatIf.ropeTheta.value_or(args.rope_theta), args.use_scaled_rope,
                                             !tok_embd.hasData(), float(args.rope_scale_factor));
}

DType computeDTypeOf(const Model& model, const WhatIf& whatIf) {
    if (whatIf.computeDType) return *whatIf.computeDType;
    // The matrices decide: a BF16 GGUF file keeps its norms in F32, as llama.cpp writes them.
    bool bf16 = false;
    for (const auto& [name, t] : model.tensors) {
        if (t.rank() < 2) continue;
        if (t.dtype() != DType::BF16) return DType::F32;
        bf16 = true;
    }
    return bf16 ? DType::BF16 : DType::F32;
}

LlamaTransformer::Prepared LlamaTransformer::prepare(InferenceContext& ctx, const Tensor& inputTokens, int startPos) const {
    const int64_t sequenceLength = inputTokens.dim(0);
    const int64_t endPos = startPos + sequenceLength;
    Prepared p;
    p.pass.startPos = startPos;
    // Stage 4: one embedding row per token.
    p.inputTensor = ml::Fwd_Get_Rows(tok_embd, inputTokens);
    // Everything after this computes in ComputeDType: rows of an F32 or quantized table are
    // rounded to BF16 here for a BF16 run, BF16 rows widened for an F32 one.
    if (p.inputTensor.dtype() != ComputeDType)
        p.inputTensor = ComputeDType == DType::BF16 ? ml::ToBFloat16(p.inputTensor) : ml::ToFloat32(p.inputTensor);
    ctx.stage(marks::InputEmbeddings{.inputTokens = inputTokens, .sequenceLength = sequenceLength, .tok_embd = tok_embd, .inputTensor = p.inputTensor});

    // The rotation angles for exactly these positions.
    p.pass.freqsCis = ml::Slice(PrecomputedFreqsCis, startPos, endPos);
    ctx.stage(marks::FreqsCis{.PrecomputedFreqsCis = PrecomputedFreqsCis, .endPos = endPos, .freqsCis = p.pass.freqsCis});

    // A causal mask only when several tokens go through at once: row i may not look at columns
    // after startPos + i. Columns of earlier (cached) positions stay 0, like Meta's hstack of zeros.
    // What-if --no-mask: no mask at all, so every token also sees the ones after it.
    if (sequenceLength > 1 && !ctx.whatIf.noMask) {
        Tensor mask = ml::Full({sequenceLength, endPos}, ComputeDType, -std::numeric_limits<float>::infinity());
        p.pass.mask = ml::TriangularUpper(mask, startPos + 1);
    }
    ctx.stage(marks::Mask{.inputTensor = p.inputTensor, .freqsCis = p.pass.freqsCis, .mask = p.pass.mask});
    return p;
}

Tensor LlamaTransformer::Forward(InferenceContext& ctx, const Tensor& inputTokens, int startPos) const {
    const int64_t sequenceLength = inputTokens.dim(0);
    if (sequenceLength == 0) throw std::invalid_argument("empty token array");
    if (startPos + sequenceLength > ctx.maxSeqLen)
        throw std::invalid_argument(
            fmt::format("positions up to {} exceed the context length {}", startPos + sequenceLength, ctx.maxSeqLen));
    const auto here = ctx.at(-1, startPos);
    ctx.useCacheDType(ComputeDType, startPos);

    const auto [inputTensor, pass] = prepare(ctx, inputTokens, startPos);

    // Stage 5: through every transformer block in turn.
    Tensor currentTensor = inputTensor;
    for (const auto& layer : Layers) currentTensor = layer.Forward(ctx, currentTensor, pass);

    // Stage 19: final norm, projection to the vocabulary, logits as Float32.
    currentTensor = output_norm.Forward(currentTensor);
    ctx.stage(marks::OutputNorm{.currentTensor = currentTensor, .output_norm = output_norm.weights});

    Tensor projected = ml::LinearTransformation(currentTensor, output);
    ctx.stage(marks::OutputProjection{.currentTensor = currentTensor, .outputWeights = output, .output = projected});

    Tensor logits = ml::ToFloat32(projected);
    ctx.stage(marks::Logits{.output = projected, .logits = logits});
    return logits;
}

}  // namespace llama
