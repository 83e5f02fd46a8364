#pragma once
#include "ml/linear_plan.h"
#include "model/inference_context.h"
#include "model/model.h"

namespace llama {

struct BlockTape;  // model/forward_tape.h
class Gradients;   // model/gradients.h

// SwiGLU: ffn_down(silu(ffn_gate(x)) * ffn_up(x)).
class LlamaFeedForward {
public:
    LlamaFeedForward(const Model& model, int layerIndex);
    Tensor Forward(InferenceContext& ctx, const Tensor& x) const;
    // Training (llama_feed_forward_backward.cpp): dOutput -> the gradient of x; the three
    // matrices' gradients are added to grads.
    Tensor Backward(InferenceContext& ctx, const BlockTape& saved, const Tensor& dOutput, Gradients& grads) const;

    int FFNHiddenDim;
    ml::LinearWeights ffn_gate;  // [FFNHiddenDim, Dim] "layers.N.feed_forward.w1.weight"
    ml::LinearWeights ffn_down;  // [Dim, FFNHiddenDim] "layers.N.feed_forward.w2.weight"
    ml::LinearWeights ffn_up;    // [FFNHiddenDim, Dim] "layers.N.feed_forward.w3.weight"
    // The model's LoRA adapters' updates of each matrix (none without --lora).
    LoraUpdates ffn_gate_lora, ffn_down_lora, ffn_up_lora;
};

}  // namespace llama
