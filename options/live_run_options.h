#pragma once
// The options a run in the browser takes (web/): the CLI's own model, generation and what-if
// options and --max-seq-len, parsed by the CLI's definitions so the ranges and messages are the
// CLI's. -q/--quiet is taken and has nothing to quiet. The page also runs the `batch`, `patch` and
// `tokenize` subcommands with their own options (batch_options.h, patch_options.h,
// tokenize_options.h) and the model's, and shows their views. llama-site asks the same parser whether a chapter's Try-it can run in
// the page (viewer/page/try_it_links.h).
#include <string>
#include <variant>
#include <vector>

#include "batch_options.h"
#include "patch_options.h"
#include "run_options.h"
#include "tokenize_options.h"

namespace llama::options {

struct LiveRunRequest {
    ModelChoice model;
    uint64_t seed = SamplingSettings{}.seed;
    GenerationSettings settings;
    int maxSeqLen = 0;  // 0: the model's own context
};

// `batch`: the run's model options, --max-seq-len, batch's own.
struct LiveBatchRequest {
    ModelChoice model;
    uint64_t seed = SamplingSettings{}.seed;
    GenerationSettings settings;
    BatchSettings batch;
    int maxSeqLen = 0;
};

// `patch`: --model (a directory or file, as the CLI's patch reads it) and patch's own.
struct LivePatchRequest {
    std::string model;
    PatchSettings patch;
};

// `tokenize TEXT`: --model (a directory or file) and tokenize's own.
struct LiveTokenizeRequest {
    std::string model;
    TokenizeSettings tokenize;
};

using LiveCommand = std::variant<LiveRunRequest, LiveBatchRequest, LivePatchRequest, LiveTokenizeRequest>;

// `words` without the program's name. Throws std::invalid_argument in the program's words (cli_messages.h).
LiveRunRequest parseLiveRun(const std::vector<std::string>& words);
// A run, or, when the first word is `batch`, `patch` or `tokenize`, that subcommand.
LiveCommand parseLiveCommand(const std::vector<std::string>& words);

// The model the command reads (patch's and tokenize's --model as a ModelChoice's).
ModelChoice modelChoice(const LiveCommand& command);

}  // namespace llama::options
