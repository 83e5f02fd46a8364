#pragma once
// --repeat-penalty, --repeat-last-n, --frequency-penalty, --presence-penalty: llama.cpp's
// repetition penalties (generate/sampler.h), checked as they are parsed, NaN included.
#include <CLI/CLI.hpp>

#include "generate/sampler.h"

namespace llama::cli {

void addPenaltyOptions(CLI::App& app, SamplingSettings& sampling);

}  // namespace llama::cli
