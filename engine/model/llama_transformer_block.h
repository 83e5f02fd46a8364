#pragma once
#include <optional>

#include "model/llama_attention.h"
#include "model/llama_feed_forward.h"
#include "model/rms_norm.h"

namespace llama {

class LlamaTransformerBlock {
public:
    LlamaTransformerBlock(const Model& model, int layerIndex);
    Tensor Forward(InferenceContext& ctx, const Tensor& x, int startPos, const Tensor& freqsCis,
                   const std::optional<Tensor>& mask) const;

    int LayerIndex;
    RMSNorm attn_norm;  // "layers.N.attention_norm.weight" [Dim]
    RMSNorm ffn_norm;   // "layers.N.ffn_norm.weight" [Dim]
    LlamaAttention attention;
    LlamaFeedForward feedForward;
};

}  // namespace llama
