#pragma once
#include <vector>

#include "model/llama_transformer_block.h"
#include "model/rms_norm_layer.h"

namespace llama {

class LlamaTransformer {
public:
    // Binds to the model's weights (views; nothing is copied). Errors name a missing or
    // misshaped tensor. whatIf.ropeTheta, if set, replaces the model's RoPE base frequency.
    explicit LlamaTransformer(const Model& model, const WhatIf& whatIf = {});

    // tokens: I32 [seqLen] at positions [startPos, startPos+seqLen) -> logits F32 [seqLen, VocabSize].
    Tensor Forward(InferenceContext& ctx, const Tensor& inputTokens, int startPos) const;

    ModelArgs args;
    Tensor tok_embd;                          // "tok_embeddings.weight" [VocabSize, Dim]
    std::vector<LlamaTransformerBlock> Layers;
    RMSNorm output_norm;                      // "norm.weight" [Dim]
    Tensor output;                            // "output.weight" [VocabSize, Dim]
    Tensor PrecomputedFreqsCis;               // [max_seq_len * 2, HeadDim/2] Complex64

private:
    struct Prepared {
        Tensor inputTensor;
        PassPositions pass;
    };
    Prepared prepare(InferenceContext& ctx, const Tensor& inputTokens, int startPos) const;
};

}  // namespace llama
