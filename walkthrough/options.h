#pragma once
// The command line of llama-walkthrough, parsed with CLI11.
#include <cstdint>
#include <string>
#include <vector>

#include "session/session.h"

namespace llama::cli {

struct Options {
    std::string model;       // a model directory; empty with --synthetic
    std::string synthetic;   // preset name
    std::string tokenizer;   // --tokenizer: a real tokenizer for the preset (empty: bytes)
    GenerationSettings generation;  // --prompt, --chat, --max-tokens, sampling; --seed also seeds --synthetic
    int maxSeqLen = 0;       // 0: from the model (params.json's max_seq_len or 2048)
    int threads = 0;         // 0: every core
    std::string debugLog;
    bool quiet = false;      // no model summary (tests)
    // inspection: --dry-run (session/model_source.h), --step (stepper.h), --trace (inspection.h)
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
    std::string benchObserver = "none";  // none | record | log: what watches the stages
    bool benchProfile = false;           // time per kind of ml:: op (bench_profile.h)
    std::string benchLlamaBench;         // llama.cpp's llama-bench, to compare with (llama_bench.h)
};

}  // namespace llama::cli
