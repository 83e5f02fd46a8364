#pragma once
// The live page's `batch`, `patch` and `tokenize` commands (options/live_run_options.h): run in
// the tab as llama-walkthrough runs them. batch and patch are recorded as `batch --trace` and
// `patch --trace` record them, so the run page's Batch and Patching panels (viewer/page, the same
// as export-html's) show them. Each answers with what the CLI prints (batch_report.h,
// patch_table.h, tokenize_report.h) and the numbers the page's summary needs.
#include <nlohmann/json.hpp>

#include <functional>
#include <string>

#include "options/live_run_options.h"
#include "session/session.h"

namespace llama::web {

// Loads the source into the session unless it holds it (with this context length; 0: the model's).
using EnsureLoaded = std::function<void(const ModelSource& source, int maxSeqLen)>;
// A line for the page while the command runs (patch: its forward passes so far).
using Progress = std::function<void(const std::string& line)>;

// A command that is not a run (LiveRunRequest is not taken): its answer, with "recorded": true
// when its trace was written to `tracePath` (batch, patch).
nlohmann::json runViewCommand(const options::LiveCommand& command, Session& session, const EnsureLoaded& ensureLoaded, const std::string& tracePath,
                              const Progress& progress);

// Ends a patch command's grid at its next stage (Stop); a batch stops with the session's requestStop.
void stopPatchCommand();

}  // namespace llama::web
