#pragma once
#include <vector>

#include "ml/linear_plan.h"
#include "model/llama_batch.h"
#include "model/llama_transformer_block.h"
#include "model/rms_norm_layer.h"

namespace llama {

class ForwardTape;  // model/forward_tape.h

// The dtype a model computes in: BF16 when its matrices are BF16 (norms may be F32), with the
// walkthrough's roundings (Meta's reference runs its BF16 checkpoint in BF16); F32 for F32, F16
// and quantized weights, as PyTorch on an F32 model and llama.cpp do. whatIf.computeDType
// overrides it.
DType computeDTypeOf(const Model& model, const WhatIf& whatIf);

// Whose logits a pass over a token array computes. The projection to the vocabulary is a pass's
// largest matrix: a generation samples from the last row only, so it asks for Last, and the other
// rows are projected only when an observer watches (the walkthrough's log, a trace, the stepper
// show the whole [seqLen, VocabSize] projection, as the walkthrough computes it).
enum class LogitRows { Every, Last };

class LlamaTransformer {
public:
    // Binds to the model's weights (views; nothing is copied). Errors name a missing or
    // misshaped tensor. whatIf.ropeTheta, if set, replaces the model's RoPE base frequency;
    // whatIf.computeDType, the dtype the weights choose.
    explicit LlamaTransformer(const Model& model, const WhatIf& whatIf = {});

    // tokens: I32 [seqLen] at positions [startPos, startPos+seqLen) -> logits F32 [seqLen, VocabSize];
    // with LogitRows::Last and no observer, the last position's only, [1, VocabSize] (its bits
    // are those of the last row of every row's logits).
    Tensor Forward(InferenceContext& ctx, const Tensor& inputTokens, int startPos, LogitRows rows = LogitRows::Every) const;
    // One ubatch of a batch of sequences (engine/batch/batch_decode.h), its keys and values
    // written into ctx.Cells' cells [kvSlot, kvSlot + n_tokens) -> logits F32 [n_outputs,
    // VocabSize]: one row per token that wants them, in ubatch order.
    Tensor Forward(InferenceContext& ctx, const UBatch& ubatch, Cell kvSlot) const;
    // Training (llama_transformer_backward.cpp): after Forward(ctx, tokens, 0) watched by `tape`,
    // dLogits (the loss's gradient of the logits, [seqLen, VocabSize]) back through the output,
    // every block in reverse and the embedding rows: every weight's gradient is added to grads.
    void Backward(InferenceContext& ctx, const ForwardTape& tape, const Tensor& dLogits, Gradients& grads) const;

    ModelArgs args;
    DType ComputeDType;                       // activations, KV cache, scores: computeDTypeOf(model, whatIf)
    Tensor tok_embd;                          // "tok_embeddings.weight" [VocabSize, Dim]
    std::vector<LlamaTransformerBlock> Layers;
    RMSNorm output_norm;                      // "norm.weight" [Dim]
    ml::LinearWeights output;                 // "output.weight" [VocabSize, Dim]
    Tensor PrecomputedFreqsCis;               // [max_seq_len * 2, HeadDim/2] Complex64

private:
    struct Prepared {
        Tensor inputTensor;
        PassPositions pass;
    };
    Prepared prepare(InferenceContext& ctx, const Tensor& inputTokens, int startPos) const;
    Prepared prepareUBatch(InferenceContext& ctx, const UBatch& ubatch, Cell kvSlot) const;
    Tensor embed(InferenceContext& ctx, const Tensor& inputTokens, int64_t sequenceLength) const;
    // Stages 5 and 19: every block, the final norm and the logits; of the rows in `outputRows`
    // only, when given (a batch's tokens that want logits, a generation's last).
    Tensor blocksAndOutput(InferenceContext& ctx, const Prepared& prepared, const std::optional<Tensor>& outputRows) const;
};

}  // namespace llama
