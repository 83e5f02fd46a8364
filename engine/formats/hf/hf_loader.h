#pragma once
// A Hugging Face Llama directory: config.json, model.safetensors (or shards named in
// model.safetensors.index.json), tokenizer.json and tokenizer_config.json.
#include <string>

#include "formats/hf/hf_config.h"
#include "formats/named_tensor.h"
#include "model/model.h"

namespace llama {

bool isHfDirectory(const std::string& dir);

// Tensors are renamed to Meta's names; wq/wk are copied once per layer with their rows
// un-permuted (hf_weights.h), every other weight stays a view into the mapped files.
Model loadHfModel(const std::string& dir, const LoadProgress& progress = {});
// All but the weights, from config.json and tokenizer.json (+ tokenizer_config.json) only: a
// dry run's reading, and the first half of loadHfModel.
HfConfig loadHfModelWithoutWeights(const std::string& dir, Model& model);

}  // namespace llama
