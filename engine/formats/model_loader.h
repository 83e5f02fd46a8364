#pragma once
// Recognises a model on disk and loads it: today Meta's official layout, a directory with
// consolidated.00.pth, params.json and tokenizer.model.
#include <string>

#include "formats/torch_checkpoint.h"
#include "model/model.h"

namespace llama {

// Errors name the path and what was looked for. progress(done, total) follows the weights
// being read into memory.
Model loadModel(const std::string& path, const LoadProgress& progress = {});

Model loadMetaModel(const std::string& dir, const LoadProgress& progress = {});

}  // namespace llama
