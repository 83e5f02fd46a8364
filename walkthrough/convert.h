#pragma once
// `llama-walkthrough convert --model DIR --to TARGET --out FILE`: writes a model in another
// format. Targets: gguf-f32, gguf-bf16, gguf-q8_0, gguf-q4_0, gguf-q4_k, gguf-q6_k
// (gguf_export.h says what each file holds), and safetensors: a Hugging Face directory
// (hf_export.h).
#include <CLI/CLI.hpp>
#include <string>

namespace llama::cli {

struct ConvertOptions {
    std::string model;
    std::string to;
    std::string out;
};

CLI::App* addConvertCommand(CLI::App& app, ConvertOptions& options);
int runConvert(const ConvertOptions& options);

}  // namespace llama::cli
