#pragma once
// `tokenize`'s own options (the text, --word), defined once for llama-walkthrough's `tokenize` and
// the live page, which runs a `tokenize` command in the tab.
#include <CLI/CLI.hpp>

#include <string>

namespace llama::options {

struct TokenizeSettings {
    std::string text;
    std::string word;  // the piece whose merges are shown; default: the longest
};

// TEXT (required) and --word.
void addTokenizeOptions(CLI::App& app, TokenizeSettings& tokenize);

}  // namespace llama::options
