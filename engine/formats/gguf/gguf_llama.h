#pragma once
// llama.cpp's conventions for the "llama" architecture in GGUF: tensor names and the RoPE
// frequency factors of Llama 3.1.
//
// Q and K row order: Meta's checkpoints rotate adjacent pairs (x[2i], x[2i+1]) of each head,
// as our complex RoPE does. Hugging Face's conversion permutes the rows of wq/wk per head into
// "rotate half" order (x[i], x[i + headDim/2]); llama.cpp's convert_hf_to_gguf.py undoes that
// permutation for LlamaModel (its permute() reshapes to [heads, 2, headDim/2, in] and swaps
// the middle axes), because ggml's RoPE for LLM_ARCH_LLAMA is the "normal" mode that rotates
// adjacent pairs. So a Llama GGUF's attn_q/attn_k rows are in Meta's order: we read and write
// them unchanged.
#include <optional>
#include <string>
#include <vector>

namespace llama {

// "blk.3.attn_q.weight" -> "layers.3.attention.wq.weight"; nullopt for names with no Meta
// counterpart (e.g. rope_freqs.weight).
std::optional<std::string> metaNameOfGguf(const std::string& ggufName);
// The reverse; nullopt for names that are not Llama weights.
std::optional<std::string> ggufNameOfMeta(const std::string& metaName);

// rope_freqs.weight as llama.cpp writes it for Llama 3.1/3.2 (rope_type "llama3"): per
// frequency, the divisor that turns the plain frequency into the scaled one (ropeFrequencies
// and applyRopeScaling in rope.h: no RoPE formula of its own). The lowest frequencies are divided by the whole scale factor (8 or 32).
std::vector<float> llama31RopeFactors(int headDim, double theta, float scaleFactor);

}  // namespace llama
