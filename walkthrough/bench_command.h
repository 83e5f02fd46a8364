#pragma once
#include <CLI/CLI.hpp>

#include "model/model.h"
#include "options.h"

namespace llama::cli {

// `llama-walkthrough bench`: prefill and decode tok/s, and the decode weight-streaming rate
// next to this machine's read bandwidth measured in the same run. Medians of --repeat runs.
// --profile adds the time per kind of ml:: op (bench_profile.h); --llama-bench runs llama.cpp's
// benchmark on the same GGUF file and compares (llama_bench.h).
CLI::App* addBenchCommand(CLI::App& app, Options& options);
int runBench(const Options& options);
// Every --prompt-tokens length with --decode-tokens after it fits the context (a sequence's
// positions, --parallel or not); throws naming the options.
void requireBenchFitsContext(const Options& options, const Model& model);

}  // namespace llama::cli
