#pragma once
// --dry-run: the whole flow on shape-only weights, so every stage logs its shapes and dtypes
// without arithmetic. This is how Llama 3.1 8B's shapes can be shown without its 16 GB.
#include "model/model.h"
#include "options.h"

namespace llama::cli {

// The synthetic preset shape-only, or a model directory's params.json and tokenizer.model with
// shape-only weights of the right names (consolidated.00.pth is not read).
Model loadDryRunModel(const Options& options);

}  // namespace llama::cli
