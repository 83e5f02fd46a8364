#pragma once
// `llama-walkthrough patch --clean "PROMPT" --corrupt "PROMPT" --answer " TOKEN"`: activation
// patching over every layer and position (steer/activation_patching.h), printed as a table of the
// logit difference recovered, and written as CSV with --csv and as a patch trace with --trace.
#include <CLI/CLI.hpp>

#include <string>

#include "options/patch_options.h"

namespace llama::cli {

struct PatchOptions {
    std::string model;  // set to the bundled model by main
    options::PatchSettings patch;  // --clean ... --align
    std::string csv;
    std::string trace;
};

CLI::App* addPatchCommand(CLI::App& app, PatchOptions& options);
int runPatch(const PatchOptions& options);

}  // namespace llama::cli
