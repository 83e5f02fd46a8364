#pragma once
// The command line of llama-walkthrough, parsed with CLI11.
#include <cstdint>
#include <string>
#include <vector>

#include "options/run_options.h"
#include "session/session.h"

namespace llama::cli {

// model, synthetic, tokenizer: --model, --synthetic, --tokenizer (options/run_options.h).
struct Options : options::ModelChoice {
    GenerationSettings generation;  // --prompt, --chat, --max-tokens, sampling; --seed also seeds --synthetic
    int maxSeqLen = 0;       // 0: from the model (params.json's max_seq_len or 2048)
    int threads = 0;         // 0: every core
    std::string debugLog;
    bool quiet = false;      // no model summary (tests)
    // inspection: --dry-run (session/model_source.h), --step (stepper.h), --trace (run_observers.h)
    bool dryRun = false;
    bool step = false;
    std::string trace;
    std::string html;                    // --html: the run's web page (and its trace, beside it unless --trace says where)
    std::string traceAttention = "all";  // all | none | layer list, 1-based: "1,4-6"
    bool tracePreSoftmax = false;
    int traceMaxPositions = 256;
    int traceTopK = 10;
    int traceLensTopK = 5;       // 0: no logit lens in the trace
    bool traceNoResidual = false;
    // bench
    std::vector<int> benchPromptTokens = {32};  // one prefill per length; decode follows the first
    int benchDecodeTokens = 32;
    int benchRepeats = 3;
    std::string benchObserver = "none";  // none | record | log | nonfinite: what watches the stages
    bool benchProfile = false;           // time per kind of ml:: op (bench_profile.h)
    std::string benchLlamaBench;         // llama.cpp's llama-bench, to compare with (llama_bench.h)
    std::vector<int> benchParallel;      // --parallel 1,4,8: batches of sequences (bench_parallel.h)
    std::string benchBatchedBench;       // llama.cpp's llama-batched-bench, to compare with (batched_bench.h)
};

}  // namespace llama::cli
