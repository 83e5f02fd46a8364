#pragma once
// A llama2.c checkpoint (llama2c_header.h) with its tokenizer.bin, as a Model. Float32 weights are
// views into the mapped file. Version 2's int8 groups become the engine's Q8_0 blocks when that
// keeps every weight (a group size that is a multiple of 32, every float32 scale a float16
// value), else they are dequantized to F32 once while loading; the format string says which and why.
#include <string>

#include "formats/named_tensor.h"
#include "model/model.h"

namespace llama {

// `tokenizerPath` empty: the tokenizer.bin beside the checkpoint. `shapesOnly` (a dry run):
// the header and tokenizer are read and the file's length checked; of the weights only version
// 2's scales are read (to name the dtype).
Model loadLlama2cModel(const std::string& path, const std::string& tokenizerPath = {}, const LoadProgress& progress = {},
                       bool shapesOnly = false);

}  // namespace llama
