#pragma once
// `llama-walkthrough perplexity --file TEXT`: llama.cpp's perplexity of a model on a text file
// (generate/perplexity.h), to compare a model with its quantized exports.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "model/lora.h"

namespace llama::cli {

struct PerplexityOptions {
    std::string model;  // set to the bundled model by main
    std::string file;
    int ctx = 128;
    int chunks = 0;  // 0: all
    std::vector<LoraFile> lora;
};

CLI::App* addPerplexityCommand(CLI::App& app, PerplexityOptions& options);
int runPerplexity(const PerplexityOptions& options);

}  // namespace llama::cli
