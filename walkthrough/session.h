#pragma once
// What both `run` and `bench` need: the model loaded (or synthesized) and described.
#include "model/model.h"
#include "options.h"

namespace llama::cli {

Model loadSelectedModel(const Options& options);
void printModelSummary(const Model& model);

}  // namespace llama::cli
