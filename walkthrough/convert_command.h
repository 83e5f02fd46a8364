#pragma once
// `llama-walkthrough convert (--model PATH | --synthetic PRESET [--seed N]) --to TARGET --out FILE`:
// writes a model in another format. Targets: gguf-f32, gguf-bf16, gguf-q8_0, gguf-q4_0,
// gguf-q4_k, gguf-q6_k (gguf_export.h says what each file holds), and safetensors: a Hugging
// Face directory (hf_export.h). --synthetic writes a seeded random-weight model with a preset's
// real dimensions (synthetic.h), so TinyLlama- and 8B-sized files can be made to measure on.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "generate/sampler.h"

namespace llama::cli {

struct ConvertOptions {
    std::string model;
    std::string synthetic;
    // The default is the run's, so the file holds the weights `--synthetic PRESET` runs with.
    uint64_t seed = SamplingSettings{}.seed;
    std::string to;
    std::string out;
};

CLI::App* addConvertCommand(CLI::App& app, ConvertOptions& options);
int runConvert(const ConvertOptions& options);

}  // namespace llama::cli
