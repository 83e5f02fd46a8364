#pragma once
// `bench --llama-bench PATH`: llama.cpp's own benchmark (its llama-bench binary) on the same GGUF
// file with the same threads, prompt and decode lengths and repeats, so our figures sit next to
// llama.cpp's. A measuring aid only: nothing else uses llama.cpp.
#include <string>
#include <vector>

namespace llama::cli {

// One llama-bench test: a prefill of nPrompt tokens (nGen 0) or a decode of nGen tokens from an
// empty context (nPrompt 0), tokens per second as the mean and stddev over its repetitions.
struct LlamaBenchTest {
    int nPrompt = 0;
    int nGen = 0;
    double avgTokensPerSecond = 0;
    double stddevTokensPerSecond = 0;
};

struct LlamaBenchReport {
    std::string buildCommit;  // llama.cpp's commit, when the output names it
    std::vector<LlamaBenchTest> tests;
};

// Parses `llama-bench -o json`: an array of test objects with n_prompt, n_gen, avg_ts and
// stddev_ts (and build_commit). Throws std::runtime_error saying what is wrong.
LlamaBenchReport parseLlamaBenchJson(const std::string& text);

// What `bench` asks of llama-bench, and what bench measured itself.
struct BenchComparison {
    std::string llamaBench;         // the llama-bench executable
    std::string model;              // a GGUF file
    int threads = 0;
    std::vector<int> promptTokens;  // one prefill per length
    int decodeTokens = 0;
    int repeats = 0;
    std::vector<double> oursPrefillTps;  // medians, one per prompt length
    double oursDecodeTps = 0;            // median
};

// Refuses, before anything is measured, what llama.cpp's tool cannot run: a model that is not a
// GGUF file (a synthetic one included) or a path that is not an executable. `option` is the
// option that named the tool (--llama-bench, --llama-batched-bench), for the messages.
void requireLlamaBenchInputs(const std::string& option, const std::string& tool, const std::string& model, bool synthetic);

// Runs llama-bench and prints one table: prefill and decode rows, llama.cpp's tok/s, ours, and
// the ratio. Returns 0, or 1 after saying why (its exit code and the tail of its stderr, or
// what is wrong with its output) when there is nothing to compare with.
int compareWithLlamaBench(const BenchComparison& comparison);

}  // namespace llama::cli
