#pragma once
// Meta's params.json: the hyper-parameters of a consolidated.*.pth checkpoint.
#include <string>

#include "model/model_args.h"

namespace llama {

// Errors name the file and the field. vocab_size may be -1 (Llama 2: the tokenizer's size,
// which the caller must fill in).
ModelArgs loadParamsJson(const std::string& path);

}  // namespace llama
