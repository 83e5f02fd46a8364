#pragma once
// The model in a few lines: format, source, args, weights. `run` and `bench` print it before
// they start; `inspect` prints it before the special tokens and the tensor table.
#include "model/model.h"

namespace llama::cli {

void printModelSummary(const Model& model);

}  // namespace llama::cli
