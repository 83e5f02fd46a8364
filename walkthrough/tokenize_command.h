#pragma once
// `llama-walkthrough tokenize TEXT`: chapter 8's two passes shown on real text with a real
// vocabulary: the pre-tokenizer's pieces, one piece's BPE merges step by step, then the ids.
#include <CLI/CLI.hpp>

#include <string>

#include "options/tokenize_options.h"

namespace llama::cli {

struct TokenizeOptions {
    std::string model;  // set to the bundled model by main
    options::TokenizeSettings tokenize;  // TEXT, --word
};

CLI::App* addTokenizeCommand(CLI::App& app, TokenizeOptions& options);
int runTokenize(const TokenizeOptions& options);

}  // namespace llama::cli
