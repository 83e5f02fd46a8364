#pragma once
#include "model/llama_attention.h"
#include "model/llama_feed_forward.h"
#include "model/rms_norm_layer.h"

namespace llama {

class LlamaTransformerBlock {
public:
    LlamaTransformerBlock(const Model& model, int layerIndex);
    // onlyRows, when given: the rows of x that go on after the attention's residual (stage 15),
    // the output has those rows only (a pass's last block, unwatched: the rows whose logits are wanted).
    Tensor Forward(InferenceContext& ctx, const Tensor& x, const PassPositions& pass, const Tensor* onlyRows = nullptr) const;
    // Training (llama_transformer_block_backward.cpp): the gradient of the block's output -> the
    // gradient of its input x; every weight's gradient in the block is added to grads.
    Tensor Backward(InferenceContext& ctx, const BlockTape& saved, const Tensor& dOutput, const Tensor& freqsCis, Gradients& grads) const;

    int LayerIndex;
    RMSNorm attn_norm;  // "layers.N.attention_norm.weight" [Dim]
    RMSNorm ffn_norm;   // "layers.N.ffn_norm.weight" [Dim]
    LlamaAttention attention;
    LlamaFeedForward feedForward;
};

}  // namespace llama
