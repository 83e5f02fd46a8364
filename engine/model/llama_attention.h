#pragma once
#include <optional>

#include "model/inference_context.h"
#include "model/model.h"
#include "tensor/tensor.h"

namespace llama {

class LlamaAttention {
public:
    LlamaAttention(const Model& model, int layerIndex);

    // x: normalizedX [seqLen, Dim] -> [seqLen, Dim]. mask is [seqLen, startPos+seqLen] in prefill.
    Tensor Forward(InferenceContext& ctx, const Tensor& x, int startPos, const Tensor& freqsCis,
                   const std::optional<Tensor>& mask) const;

    int LayerIndex;
    int N_Heads, N_KVHeads, N_Rep, HeadDim;
    Tensor attn_wq;  // [N_Heads * HeadDim, Dim]   "layers.N.attention.wq.weight"
    Tensor attn_wk;  // [N_KVHeads * HeadDim, Dim] "layers.N.attention.wk.weight"
    Tensor attn_wv;  // [N_KVHeads * HeadDim, Dim] "layers.N.attention.wv.weight"
    Tensor attn_wo;  // [Dim, N_Heads * HeadDim]   "layers.N.attention.wo.weight"
};

// [seqLen, N_KVHeads, HeadDim] -> [seqLen, N_KVHeads * N_Rep, HeadDim]: each KV head copied N_Rep
// times, so every query head has its keys and values (grouped-query attention).
Tensor attentionRepeatKV(const Tensor& x, int N_Rep);

}  // namespace llama
