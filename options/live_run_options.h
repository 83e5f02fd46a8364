#pragma once
// The options a run in the browser takes (web/): the CLI's own model, generation and what-if
// options and --max-seq-len, parsed by the CLI's definitions so the ranges and messages are the
// CLI's. -q/--quiet is taken and has nothing to quiet. llama-site asks the same parser whether a
// chapter's Try-it can run in the page (viewer/page/try_it_links.h).
#include <string>
#include <vector>

#include "run_options.h"

namespace llama::options {

struct LiveRunRequest {
    ModelChoice model;
    uint64_t seed = SamplingSettings{}.seed;
    GenerationSettings settings;
    int maxSeqLen = 0;  // 0: the model's own context
};

// `words` without the program's name. Throws std::invalid_argument in the program's words (cli_messages.h).
LiveRunRequest parseLiveRun(const std::vector<std::string>& words);

}  // namespace llama::options
