#pragma once
// `batch`'s own options (many prompts decoded together, llama.cpp's way: batch/parallel_generation.h),
// defined once for llama-walkthrough's `batch` and the live page, which runs a `batch` command in
// the tab: the same names, ranges and messages.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "session/session.h"

namespace llama::options {

struct BatchSettings {
    std::vector<std::string> prompts;  // -p, repeatable
    int parallel = 4;
    int ubatch = kDefaultUbatch;
    bool contextShift = false;
    int keep = 0;
};

// -p (repeatable; returned, so a caller's other source of prompts can exclude it), --system,
// --chat, the sampling options (-n and the sampler's), --parallel, --ubatch, --context-shift, --keep.
CLI::Option* addBatchOptions(CLI::App& app, BatchSettings& batch, GenerationSettings& generation);

// Once the prompts are known: throws std::invalid_argument for none, or --keep without --context-shift.
void checkBatch(const BatchSettings& batch);

}  // namespace llama::options
