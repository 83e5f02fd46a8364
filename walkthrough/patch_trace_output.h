#pragma once
// `patch --trace FILE`: the clean and corrupted prompts each recorded as a run (the prefill and
// the one token after it, greedy) and written with the patching grid as one patch trace
// (trace/patch_trace.h), which the viewer and `export-html` show as a heatmap.
#include <string>

#include "model/model.h"
#include "steer/activation_patching.h"

namespace llama::cli {

void writePatchingTrace(const std::string& path, const Model& model, const PatchingSetup& setup, const PatchingResult& result);

}  // namespace llama::cli
