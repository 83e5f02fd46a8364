#pragma once
// `patch --trace FILE`: the clean and corrupted prompts each recorded as a run (the prefill and
// the one token after it, greedy) and written with the patching grid as one patch trace
// (trace/patch_trace.h), which the viewer and `export-html` show as a heatmap.
#include <atomic>
#include <string>

#include "model/model.h"
#include "steer/activation_patching.h"

namespace llama::cli {

// `stop` (Ctrl-C's flag) ends the recording at the next stage with GenerationStopped; the file at
// `path` is then not written.
void writePatchingTrace(const std::string& path, const Model& model, const PatchingSetup& setup, const PatchingResult& result,
                        const std::atomic<bool>* stop);

}  // namespace llama::cli
