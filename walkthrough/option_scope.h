#pragma once
// Every option applies or is refused (issue 46). The main command's options live on the top-level
// parser, so CLI11 takes them before a subcommand's name too (`--temperature 1 tokenize`), where the
// subcommand never reads them; and some options are dropped by another (speculative decoding is
// greedy: no sampler runs; so is temperature 0, where top-k, top-p and min-p filter nothing). One
// table says which of the main command's options each subcommand applies; which options another
// drops or needs is the rules the viewer shares (options/option_combinations.h). main checks both
// after parsing, before any work.
#include <CLI/CLI.hpp>

namespace llama::cli {

// Throws std::invalid_argument naming the option and the subcommand, or the option that drops it.
void requireOptionsApply(const CLI::App& app);

}  // namespace llama::cli
