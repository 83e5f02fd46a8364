#pragma once
// Options of a run that another one drops, or that apply only beside another (issue 46: every
// option applies or is refused with a reason). Both front ends check them after parsing, before
// any work: llama-walkthrough (walkthrough/option_scope.h) and llama-viewer
// (viewer/state/viewer_command_line.h). A rule whose options a program does not have never fires.
#include <CLI/CLI.hpp>

#include <string_view>
#include <vector>

namespace llama::options {

// Whether `app` has the option `name` and it was given.
bool given(const CLI::App& app, std::string_view name);

struct Combination {
    std::vector<std::string_view> options;
    std::vector<std::string_view> others;
    bool needed;  // true: the options apply only with one of the others; false: the others drop them
    std::string_view why;
};

// Throws std::invalid_argument for the first rule broken, naming both options, why, and what to do.
void requireCombinations(const CLI::App& app, const std::vector<Combination>& rules);

// The rules of a run both front ends share: the sampler's options with speculative decoding (which
// is greedy), --draft-max without a draft, and the filters --top-k, --top-p and --min-p at
// temperature 0, where no token is drawn.
void requireRunOptionsCombine(const CLI::App& app);

}  // namespace llama::options
