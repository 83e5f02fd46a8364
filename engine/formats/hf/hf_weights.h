#pragma once
// Hugging Face's Llama weights in Meta's terms: the tensor names mapped to Meta's, and the
// q/k projections' rows put back in Meta's order.
//
// Why the rows differ: Meta's RoPE rotates adjacent pairs (x0,x1), (x2,x3), ... of each head
// as complex numbers; Hugging Face's "rotate_half" rotates (x_i, x_{i+HeadDim/2}). Their
// conversion script permutes the rows of wq and wk so that its RoPE sees the same pairs:
// within each head, Meta row 2i+s (s = 0 or 1, i < HeadDim/2) becomes HF row s*HeadDim/2 + i.
// We undo that at load so our complex-number RoPE applies unchanged (chapters/07-rope.md).
#include <optional>
#include <string>

#include "tensor/tensor.h"

namespace llama {

// Meta's name for a Hugging Face tensor name ("model.layers.3.mlp.gate_proj.weight" ->
// "layers.3.feed_forward.w1.weight"); nullopt for names that are not Llama weights
// (e.g. "model.layers.0.self_attn.rotary_emb.inv_freq" in old checkpoints).
std::optional<std::string> metaTensorName(const std::string& hfName);

// Hugging Face's row order of a q or k projection [nHeads*HeadDim, dim] from Meta's, and back.
// These copy the weight into a new tensor (a view into the file cannot be reordered).
Tensor permuteRowsForRotateHalf(const Tensor& metaWeight, int nHeads);
Tensor unpermuteRowsFromRotateHalf(const Tensor& hfWeight, int nHeads);

}  // namespace llama
