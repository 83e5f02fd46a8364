#pragma once
// A llama2.c checkpoint (llama2c_header.h) with its tokenizer.bin, as a Model. Float32 weights are
// views into the mapped file. Version 2's int8 groups become the engine's Q8_0 blocks when the
// group size is a multiple of 32 (each group's float32 scale rounded to Q8_0's float16: the
// format string says so), else they are dequantized to F32 once while loading.
#include <string>

#include "formats/meta/torch_checkpoint.h"
#include "model/model.h"

namespace llama {

// `tokenizerPath` empty: the tokenizer.bin beside the checkpoint. `shapesOnly` (a dry run):
// the header and tokenizer are read and the file's length checked, no weight is touched.
Model loadLlama2cModel(const std::string& path, const std::string& tokenizerPath = {}, const LoadProgress& progress = {},
                       bool shapesOnly = false);

}  // namespace llama
