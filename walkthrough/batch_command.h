#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "options.h"
#include "options/batch_options.h"

namespace llama::cli {

// `llama-walkthrough batch`: many prompts decoded together in one batch per step, llama.cpp's
// way (batch/parallel_generation.h): --parallel sequences at a time, queued prompts joining as
// others finish, a shared prefix stored once, --context-shift past each sequence's share of the
// cells. Prints each sequence's text and a summary: per-sequence and total tokens/s, cells.
struct BatchOptions {
    Options run;
    options::BatchSettings batch;  // -p ... --keep
    std::string promptsFile;       // one prompt per line
};

CLI::App* addBatchCommand(CLI::App& app, BatchOptions& options);
int runBatch(const BatchOptions& options);

}  // namespace llama::cli
