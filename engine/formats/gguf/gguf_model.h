#pragma once
// A Llama model from a GGUF file: args from the llama.* metadata, weights renamed to Meta's
// names (gguf_llama.h) as views into the mapped file, the tokenizer from tokenizer.ggml.*.
#include <string>

#include "formats/named_tensor.h"
#include "model/model.h"

namespace llama {

// shapesOnly (a dry run): only the header and metadata are read; the weights are shape-only, and
// rope_freqs.weight's presence (not its values) says Llama 3.1's scaling is used.
Model loadGgufModel(const std::string& path, const LoadProgress& progress = {}, bool shapesOnly = false);

// A regular file named *.gguf or starting with GGUF's magic.
bool isGgufFile(const std::string& path);

}  // namespace llama
