#pragma once
// A Llama model from a GGUF file: args from the llama.* metadata, weights renamed to Meta's
// names (gguf_llama.h) as views into the mapped file, the tokenizer from tokenizer.ggml.*.
#include <string>

#include "formats/meta/torch_checkpoint.h"
#include "model/model.h"

namespace llama {

Model loadGgufModel(const std::string& path, const LoadProgress& progress = {});

}  // namespace llama
