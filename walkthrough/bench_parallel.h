#pragma once
#include "options.h"

namespace llama::cli {

// `bench --parallel 1,4,8`: llama-batched-bench's measurement with our engine. For each B, B
// sequences each prefill --prompt-tokens tokens in one batch (PP), then generate --decode-tokens
// steps of B tokens (TG); tokens/s of each, medians of --repeat runs, and TG's weight-streaming
// rate. --llama-batched-bench PATH runs llama.cpp's on the same GGUF file and prints the ratios.
int runParallelBench(const Options& options);

}  // namespace llama::cli
