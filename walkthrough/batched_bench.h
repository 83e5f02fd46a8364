#pragma once
// `bench --parallel N,... --llama-batched-bench PATH`: llama.cpp's llama-batched-bench on the same
// GGUF file with the same prompt and generation lengths, sequence counts and threads, next to
// our own figures. A measuring aid only: nothing else uses llama.cpp.
#include <string>
#include <vector>

namespace llama::cli {

// One row of llama-batched-bench's table: B sequences, each a PP-token prompt then TG tokens.
struct BatchedBenchRow {
    int pp = 0, tg = 0, b = 0, nKV = 0;
    double tPP = 0, sPP = 0;  // prompt processing: seconds, tokens/s (B * PP / T_PP)
    double tTG = 0, sTG = 0;  // generation: seconds, tokens/s (B * TG / T_TG)
};

// The rows of its markdown table ("|    32 |     32 |    1 | ..."); throws std::runtime_error
// when there are none or a row does not have its ten numbers.
std::vector<BatchedBenchRow> parseBatchedBenchTable(const std::string& text);

struct BatchedBenchComparison {
    std::string batchedBench;  // the llama-batched-bench executable
    std::string model;         // a GGUF file
    int threads = 0, promptTokens = 0, decodeTokens = 0, repeats = 0, nUbatch = 0;
    std::vector<int> parallel;
    std::vector<double> oursPP, oursTG;  // medians, one per entry of parallel
};

// Runs it `repeats` times, takes each figure's median, prints both and the ratios. Returns 0, or 1
// after saying why there is nothing to compare with.
int compareWithBatchedBench(const BatchedBenchComparison& comparison);

}  // namespace llama::cli
