#include "model_source_options.h"

#include <fmt/format.h>

#include <cstdio>

#include "options/run_options.h"

namespace llama::cli {

void addModelOptions(CLI::App& app, Options& o) {
    options::addModelOptions(app, o, o.generation.sampling.seed);
    options::addThreadsOption(app, o.threads);
    options::addContextLengthOption(app, o.maxSeqLen);
}

ModelSource selectedSource(const Options& o) { return o.source(o.generation.sampling.seed); }

LoadOptions loadOptions(const Options& options, bool shapesOnly) {
    LoadOptions load{.shapesOnly = shapesOnly, .maxSeqLen = options.maxSeqLen};
    if (options.quiet) return load;
    // Loading maps the file; the progress bar follows the pages being read in.
    load.progress = [lastPercent = -1](size_t done, size_t total) mutable {
        int percent = total ? int(100 * done / total) : 100;
        if (percent == lastPercent) return;
        lastPercent = percent;
        fmt::print(stderr, "\rLoading weights: {:3d}% ({:.1f} / {:.1f} MB)", percent, done / 1e6, total / 1e6);
        if (done >= total) fmt::print(stderr, "\n");
    };
    return load;
}

}  // namespace llama::cli
