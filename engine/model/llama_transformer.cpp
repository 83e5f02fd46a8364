#include "model/llama_transformer.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

#include "ml/ops.h"
#include "model/finite_logits.h"
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
    p.pass.startPos = Position(startPos);
    p.inputTensor = embed(ctx, inputTokens, sequenceLength);

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
    p.pass.firstCell = soleSequenceCell(p.pass.startPos);
    p.pass.nKV = int(endPos);
    return p;
}

Tensor LlamaTransformer::embed(InferenceContext& ctx, const Tensor& inputTokens, int64_t sequenceLength) const {
    // Stage 4: one embedding row per token.
    Tensor inputTensor = ml::Fwd_Get_Rows(tok_embd, inputTokens);
    // Everything after this computes in ComputeDType: rows of an F32 or quantized table are
    // rounded to BF16 here for a BF16 run, BF16 rows widened for an F32 one.
    if (inputTensor.dtype() != ComputeDType)
        inputTensor = ComputeDType == DType::BF16 ? ml::ToBFloat16(inputTensor) : ml::ToFloat32(inputTensor);
    ctx.stage(marks::InputEmbeddings{.inputTokens = inputTokens, .sequenceLength = sequenceLength, .tok_embd = tok_embd, .inputTensor = inputTensor});
    return inputTensor;
}

LlamaTransformer::Prepared LlamaTransformer::prepareUBatch(InferenceContext& ctx, const UBatch& ubatch, Cell kvSlot) const {
    std::vector<int32_t> tokenIds, positionIds;
    for (int i = 0; i < ubatch.nTokens; ++i) {
        tokenIds.push_back(ubatch.token(i));
        positionIds.push_back(ubatch.pos(i));
    }
    Prepared p;
    p.pass.startPos = Position(ubatch.pos(0));
    p.pass.oneSequence = false;
    p.inputTensor = embed(ctx, Tensor::fromInt32(tokenIds), ubatch.nTokens);

    // Each token rotates by its own position: the rows of the angle table at the positions, which
    // need not follow each other (two sequences, or positions moved by a context shift).
    const Tensor positions = Tensor::fromInt32(positionIds);
    p.pass.freqsCis = ml::Fwd_Get_Rows(PrecomputedFreqsCis, positions);
    ctx.stage(marks::BatchPositions{.PrecomputedFreqsCis = PrecomputedFreqsCis, .positions = positions, .freqsCis = p.pass.freqsCis});

    // The mask comes from the cells, even for one token: a token of sequence 1 must not see the
    // cells of sequence 0 (the block-diagonal causal mask of a batch of two sequences).
    p.pass.firstCell = kvSlot;
    p.pass.nKV = ctx.Cells.nKV();
    p.pass.mask = ctx.Cells.mask(ubatch, p.pass.nKV, ComputeDType);
    ctx.stage(marks::KvMask{.nTokens = ubatch.nTokens, .nKV = p.pass.nKV, .mask = *p.pass.mask});
    ctx.stage(marks::Mask{.inputTensor = p.inputTensor, .freqsCis = p.pass.freqsCis, .mask = p.pass.mask});
    return p;
}

Tensor LlamaTransformer::Forward(InferenceContext& ctx, const Tensor& inputTokens, int startPos, LogitRows rows) const {
    const int64_t sequenceLength = inputTokens.dim(0);
    if (sequenceLength == 0) throw std::invalid_argument("empty token array");
    if (startPos + sequenceLength > ctx.maxSeqLen)
        throw std::invalid_argument(
            fmt::format("positions up to {} exceed the context length {}", startPos + sequenceLength, ctx.maxSeqLen));
    return requireFiniteLogits(ctx, [&] {
        const auto here = ctx.at(-1, Position(startPos), soleSequenceCell(Position(startPos)));
        ctx.useCacheDType(ComputeDType, soleSequenceCell(Position(startPos)));
        std::optional<Tensor> outputRows;
        if (rows == LogitRows::Last && sequenceLength > 1 && !ctx.observed()) outputRows = Tensor::fromInt32({int32_t(sequenceLength - 1)});
        return blocksAndOutput(ctx, prepare(ctx, inputTokens, startPos), outputRows);
    });
}

Tensor LlamaTransformer::Forward(InferenceContext& ctx, const UBatch& ubatch, Cell kvSlot) const {
    if (ubatch.nTokens == 0) throw std::invalid_argument("empty ubatch");
    std::vector<int32_t> outputRows;
    for (int i = 0; i < ubatch.nTokens; ++i)
        if (ubatch.logits(i)) outputRows.push_back(i);
    return requireFiniteLogits(ctx, [&] {
        const auto here = ctx.at(-1, Position(ubatch.pos(0)), kvSlot);
        ctx.useCacheDType(ComputeDType, kvSlot);
        return blocksAndOutput(ctx, prepareUBatch(ctx, ubatch, kvSlot), Tensor::fromInt32(outputRows));
    });
}

Tensor LlamaTransformer::blocksAndOutput(InferenceContext& ctx, const Prepared& prepared, const std::optional<Tensor>& outputRows) const {
    // Stage 5: through every transformer block in turn.
    // Unwatched and without a what-if, the last block's feed-forward already takes only the rows
    // whose logits are wanted (as llama.cpp's graph does): nothing later reads the others. A
    // watched run computes every row, as its log shows.
    const bool rowsEarly = outputRows && !ctx.observed() && !ctx.whatIf.any();
    Tensor currentTensor = prepared.inputTensor;
    for (const auto& layer : Layers)
        currentTensor = layer.Forward(ctx, currentTensor, prepared.pass, rowsEarly && &layer == &Layers.back() ? &*outputRows : nullptr);

    // Stage 19: final norm, projection to the vocabulary, logits as Float32.
    currentTensor = output_norm.Forward(currentTensor);
    ctx.stage(marks::OutputNorm{.currentTensor = currentTensor, .output_norm = output_norm.weights});
    // Only the rows whose logits are wanted (a batch's, a generation's last): the vocabulary matrix
    // is the largest.
    if (outputRows && !rowsEarly) currentTensor = ml::Fwd_Get_Rows(currentTensor, *outputRows);

    Tensor projected = ml::LinearTransformation(currentTensor, output);
    ctx.stage(marks::OutputProjection{.currentTensor = currentTensor, .outputWeights = output, .output = projected});

    Tensor logits = ml::ToFloat32(projected);
    ctx.stage(marks::Logits{.output = projected, .logits = logits});
    return logits;
}

}  // namespace llama
