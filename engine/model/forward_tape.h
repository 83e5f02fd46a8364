#pragma once
// What the backward pass reads of the forward pass: the tensors its stage marks showed, kept as
// they were shown (an observer, like the debug log or the viewer). Every value a layer's
// Backward uses is one a learner could see at a forward stage; nothing is computed twice.
#include <vector>

#include "stages/stage_event.h"
#include "tensor/tensor.h"

namespace llama {

// One block's forward pass, named as its stages name the values.
struct BlockTape {
    Tensor x;            // block_forward: the block's input [S, Dim]
    Tensor normalizedX;  // attention_norm
    Tensor xq, xk;       // rotary: queries and keys after RoPE [S, N_Heads or N_KVHeads, HeadDim]
    Tensor xv;           // reshape_heads: values [S, N_KVHeads, HeadDim]
    Tensor scores;       // scores_softmax: attention weights [N_Heads, S, S]
    Tensor attention;    // attention_reshape: the heads' outputs side by side [S, N_Heads * HeadDim], before attn_wo
    Tensor h;            // attention_residual: x + attention
    Tensor normalizedH;  // ffn_norm
    Tensor gate;         // ffn_gate: x · ffn_gateᵀ, before SiLU [S, FFNHiddenDim]
    Tensor siluGate;     // ffn_silu
    Tensor ffnUpX;       // ffn_up
    Tensor gated;        // ffn_multiply: silu(gate) * ffnUpX, into ffn_down
};

class ForwardTape : public StageObserver {
public:
    explicit ForwardTape(int nLayers) : layers(size_t(nLayers)) {}

    Tensor inputTokens;       // input_embeddings
    Tensor freqsCis;          // freqs_cis: the RoPE angles of the pass's positions
    std::vector<BlockTape> layers;
    Tensor blocksOutput;      // ffn_residual of the last block: into the final norm
    Tensor normalizedOutput;  // output_norm: into the projection to the vocabulary

    // Handles are enough: an op's result is never written again, so keeping it costs no copy;
    // and no log line is made for the tape.
    StageReads reads(StageId, int) const override { return StageReads::Handles; }
    void onStage(const StageEvent& event) override;
};

}  // namespace llama
