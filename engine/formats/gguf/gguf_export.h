#pragma once
// Writes a loaded Llama 3 model as a GGUF file the way llama.cpp's convert_hf_to_gguf.py
// (and llama-quantize for the quantized types) would for the same model: the same
// metadata keys and types, tokenizer as "gpt2"/"llama-bpe", tensor names blk.N.*, Q/K rows
// unpermuted (gguf_llama.h), rope_freqs.weight for Llama 3.1's scaling.
// Norm weights (1-D) stay F32, as llama.cpp keeps them. Every 2-D weight, token_embd and
// output included, gets `weightType`: the simplest honest mix (llama.cpp's Q4_K_M, by
// contrast, keeps some tensors at Q6_K); a weight whose rows are not whole blocks of that
// type falls back to Q8_0, then F32.
#include <string>

#include "model/model.h"

namespace llama {

void exportGguf(const Model& model, DType weightType, const std::string& outPath);

}  // namespace llama
