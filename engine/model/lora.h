#pragma once
// LoRA adapters (Hu et al. 2021, "LoRA: Low-Rank Adaptation of Large Language Models"): for some
// weight matrices W [out, in] of the blocks, two small ones, A [rank, in] and B [out, rank]. The
// linear layer then computes
//     y = x · Wᵀ + scale · (x · Aᵀ) · Bᵀ,   scale = SCALE · alpha / rank
// (llama.cpp's llm_build_lora_mm and get_scale; SCALE is --lora FILE:SCALE, alpha the file's
// adapter.lora.alpha). W is never changed, so several adapters add up and each can be taken away.
// The files are llama.cpp's GGUF LoRA adapters (formats/gguf/gguf_lora.h); fine-tuning trains A
// and B with W frozen (train --lora-rank, engine/train).
#include <map>
#include <string>
#include <vector>

#include "model/inference_context.h"
#include "tensor/tensor.h"

namespace llama {

class Gradients;  // model/gradients.h

// One --lora argument: FILE or FILE:SCALE (the same form as --control-vector's).
struct LoraFile {
    std::string path;
    float scale = 1.0f;
};
// Throws std::invalid_argument naming the argument.
LoraFile parseLoraArgument(const std::string& text);

struct LoraAdapter {
    std::string path;  // the file (empty for one being trained)
    // Being fine-tuned (train --lora-rank): Gradients trains its A and B and freezes the model's own weights.
    bool trained = false;
    float alpha = 0;   // adapter.lora.alpha
    float userScale = 1;
    struct Pair {
        Tensor A;  // F32 [rank, in]
        Tensor B;  // F32 [out, rank]
    };
    std::map<std::string, Pair> pairs;  // by W's name in Meta's layout ("layers.0.attention.wq.weight")

    int64_t rank() const { return pairs.empty() ? 0 : pairs.begin()->second.A.dim(0); }
    // userScale · alpha / rank, as llama.cpp (alpha 0: userScale alone).
    float scaleOf(const Pair& pair) const { return alpha != 0 ? userScale * alpha / float(pair.A.dim(0)) : userScale; }
    // "--lora FILE:SCALE" as typed, or "the adapter being trained".
    std::string describe() const;
};

// One adapter's update of one weight, as a layer holds it beside the weight.
struct LoraUpdate {
    std::string adapter;  // LoraAdapter::describe(), for the log
    Tensor A, B;
    float scale = 1;
};
using LoraUpdates = std::vector<LoraUpdate>;

// The updates of the weight named `weightName` (Meta's name) in every adapter, in their order.
LoraUpdates loraUpdatesOf(const std::vector<LoraAdapter>& adapters, const std::string& weightName);

// The linear layer's result y = x · Wᵀ with every update's product scale · (x · Aᵀ) · Bᵀ added, each
// shown as a `lora` stage. y unchanged (and no stage) when there are none. weightsName is the
// walkthrough's ("attn_wq").
Tensor addLoraProducts(InferenceContext& ctx, const char* weightsName, const Tensor& x, Tensor y, const LoraUpdates& updates);

// Their backward: with u = x · Aᵀ, given dy (the gradient of y): A's and B's gradients are added to
// grads (dB += scale · dyᵀ · u, dA += (scale · dy · B)ᵀ · x), and x's share, scale · dy · B · A,
// is added to dX; each shown as a `lora_backward` stage. F32, as the rest of the backward pass.
void addLoraBackward(InferenceContext& ctx, const char* weightsName, const LoraUpdates& updates, const Tensor& dy, const Tensor& x, Tensor& dX,
                     Gradients& grads);

}  // namespace llama
