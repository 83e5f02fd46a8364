#pragma once
// `patch`'s own options (activation patching: steer/activation_patching.h), defined once for
// llama-walkthrough's `patch` and the live page, which runs a `patch` command in the tab.
#include <CLI/CLI.hpp>

#include <string>

#include "steer/activation_patching.h"

namespace llama::options {

struct PatchSettings {
    PatchingSetup setup;  // its site and align are set by patchingSetup from the names below
    std::string site = "block";
    std::string align = "same";
    PatchingSetup patchingSetup() const;
};

// --clean, --corrupt, --answer (required), --wrong, --site, --heads, --align.
void addPatchOptions(CLI::App& app, PatchSettings& patch);

}  // namespace llama::options
