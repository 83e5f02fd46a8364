#pragma once
// What `batch` prints after its run: each sequence's prompt and text, a line per sequence (tokens,
// tok/s, context shifts, why it stopped) and the batch's totals (llama_decode calls, KV cells).
// The live page prints the same text for a `batch` command run in the tab (web/module/live_views.cpp).
#include <string>
#include <vector>

#include "batch/parallel_generation.h"
#include "session/session.h"

namespace llama::cli {

// `generation`: the run's (its mode and system text head each prompt's line); `contextLength`: the
// model's cells (max_seq_len).
std::string batchReport(const std::vector<std::string>& prompts, const GenerationSettings& generation, int parallel, const ParallelResult& r,
                        int contextLength);

}  // namespace llama::cli
