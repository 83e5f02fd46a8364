#pragma once
// Writes a loaded model as a llama2.c checkpoint plus its tokenizer.bin (`convert --to llama2c`,
// legacy: the layout run.c reads; `--to llama2c-v1`: export.py's version 1). Weights are
// written as float32 whatever they were (quantized ones dequantized). Refused, by name, before
// anything is written: what run.c cannot compute as the model does (run.c fixes RoPE's base at
// 10000 and the norm epsilon at 1e-5, has no RoPE scaling) and vocabularies its encoder cannot
// use (llama2c_tokenizer.h).
#include <string>

#include "model/model.h"

namespace llama {

// version 0 (legacy) or 1. The tokenizer goes to tokenizer.bin beside `outPath`.
void exportLlama2c(const Model& model, const std::string& outPath, int version);

// The path of the tokenizer.bin exportLlama2c writes beside `outPath`.
std::string llama2cTokenizerPathFor(const std::string& outPath);

}  // namespace llama
