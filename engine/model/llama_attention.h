#pragma once
#include <optional>

#include "ml/linear_plan.h"
#include "model/inference_context.h"
#include "model/model.h"
#include "model/position_and_cell.h"
#include "tensor/tensor.h"

namespace llama {

struct BlockTape;  // model/forward_tape.h
class Gradients;   // model/gradients.h

// The positions one forward pass covers, made once by LlamaTransformer.prepare and handed
// unchanged to every block and on to its attention (the walkthrough passes them as three
// arguments, startPos, freqsCis and mask, at every level).
// A batch of sequences (engine/batch) writes its keys and values into the cells find_slot chose
// and reads n_kv cells back; one sequence writes at startPos and reads everything before it.
struct PassPositions {
    // The first token's position: one sequence's startPos. A batch's tokens each have their own
    // (BatchPositions' positions tensor), of sequences of their own: this is its first token's.
    Position startPos{0};
    bool oneSequence = true;     // false: a batch of sequences sharing the cells, where positions and cells part
    Tensor freqsCis;             // [seqLen, HeadDim/2] Complex64: RoPE angles of exactly these positions
    std::optional<Tensor> mask;  // [seqLen, nKV] when seqLen > 1 (prefill) or a batch; none for one token
    Cell firstCell{0};           // the first KV cache row written: startPos's, or the ubatch's slot
    int nKV = 0;                 // KV cache rows read: startPos + seqLen, or the cells' n_kv
};

class LlamaAttention {
public:
    LlamaAttention(const Model& model, int layerIndex);

    // x: normalizedX [seqLen, Dim] -> [seqLen, Dim].
    Tensor Forward(InferenceContext& ctx, const Tensor& x, const PassPositions& pass) const;
    // Training (llama_attention_backward.cpp): dOutput, the gradient of Forward's result, -> the
    // gradient of x; the four matrices' gradients are added to grads. `saved` is this block's
    // forward pass, as its stage marks showed it (a prefill of one sequence from position 0).
    Tensor Backward(InferenceContext& ctx, const BlockTape& saved, const Tensor& dOutput, const Tensor& freqsCis, Gradients& grads) const;

    int LayerIndex;
    int N_Heads, N_KVHeads, N_Rep, HeadDim;
    ml::LinearWeights attn_wq;  // [N_Heads * HeadDim, Dim]   "layers.N.attention.wq.weight"
    ml::LinearWeights attn_wk;  // [N_KVHeads * HeadDim, Dim] "layers.N.attention.wk.weight"
    ml::LinearWeights attn_wv;  // [N_KVHeads * HeadDim, Dim] "layers.N.attention.wv.weight"
    ml::LinearWeights attn_wo;  // [Dim, N_Heads * HeadDim]   "layers.N.attention.wo.weight"
    // The model's LoRA adapters' updates of each matrix (none without --lora).
    LoraUpdates attn_wq_lora, attn_wk_lora, attn_wv_lora, attn_wo_lora;
};

// [seqLen, N_KVHeads, HeadDim] -> [seqLen, N_KVHeads * N_Rep, HeadDim]: each KV head copied N_Rep
// times, so every query head has its keys and values (grouped-query attention).
Tensor attentionRepeatKV(const Tensor& x, int N_Rep);

}  // namespace llama
