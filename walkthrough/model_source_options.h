#pragma once
// The model run, bench and --dry-run use, as the command line names it: --model or --synthetic
// (with --seed), loaded by the engine's session facade (session/session.h).
#include <CLI/CLI.hpp>

#include "options.h"

namespace llama::cli {

// --model, --synthetic, --tokenizer, --seed (options/run_options.h), --threads, --max-seq-len:
// the run's and bench's.
void addModelOptions(CLI::App& app, Options& options);

ModelSource selectedSource(const Options& options);
// shapesOnly for --dry-run; --max-seq-len; a progress bar on stderr while the weights are read
// (not with -q).
LoadOptions loadOptions(const Options& options, bool shapesOnly);

}  // namespace llama::cli
