// --step with a scripted stdin, --dry-run of Llama 3.1 8B's shapes and --trace, through the real CLI.
#include <catch2/catch.hpp>

#include "cli_run.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "trace/trace_reader.h"
#include "test_files.h"

using namespace llama;
namespace fs = std::filesystem;

TEST_CASE("CLI --step: a scripted session steps, prints, breaks and runs to the end", "[cli][step]") {
    // tokenize -> tokens_tensor -> sequence_loop -(l)-> block of layer 1 -> attention_norm ->
    // attention -> three qkv_schedule and three qkv_task marks -> qkv: print xq, break at the
    // softmax, continue to it; then end of input.
    CliRun r = runWalkthrough("--synthetic tiny --step -n 2 -q -p \"In the beginning God created\"",
                              "\n\nl\n\n\n\n\n\n\n\n\n\np xq\nb scores_softmax\nc\n");
    INFO(r.output);
    CHECK(r.exitCode == 0);
    CHECK(contains(r.output, "-- Stage 1: Tokenization [tokenize] chapters/08-tokenization.md"));
    CHECK(contains(r.output, "-- Stage 5: Forward through a transformer block [block]"));
    CHECK(contains(r.output, "layer 1/2, prefill (step 0), startPos 0"));
    CHECK(contains(r.output, "xq [29 64] BF16\n"));  // the printed slice: 29 rows elided to 8
    CHECK(contains(r.output, "\n[28]  "));
    CHECK(contains(r.output, "breakpoint: stage 13 scores_softmax"));
    CHECK(contains(r.output, "-- Stage 13: Scores: softmax [scores_softmax]"));
    CHECK(contains(r.output, "(breakpoint)"));
    CHECK(contains(r.output, "(end of input: running to the end)"));
    CHECK(contains(r.output, "stopped by: max tokens"));
}

TEST_CASE("CLI --step: q ends the generation cleanly", "[cli][step]") {
    CliRun r = runWalkthrough("--synthetic tiny --step -n 2 -q", "\nq\n");
    INFO(r.output);
    CHECK(r.exitCode == 0);
    CHECK(contains(r.output, "stopping the generation"));
    CHECK(contains(r.output, "stopped by: stopped"));
}

TEST_CASE("CLI --step: token pieces at stage 1, attention labelled with tokens, top K at the logits", "[cli][step]") {
    CliRun r = runWalkthrough("--step -n 1 -q -p \"The cat sat on the mat\"", "b scores_mask 2\nc\np scores 1\nb logits\nc\ntop 3\n\ntop 2\nq\n");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(r.output.find("   | Token pieces: \"<|begin_of_text|>\" \"The\" \" c\" \"at\" \" sat\" \" on\" \" the\" \" m\" \"at\"\n") !=
          std::string::npos);
    // The scores' rows are the queries, their columns the keys: both positions carry their token.
    CHECK(r.output.find("[2] \" c\"") != std::string::npos);
    CHECK(r.output.find("  5 \" on\"") != std::string::npos);
    CHECK(r.output.find("top 3 of 4096 logits (the last position's row):\n  rank      id     logit    prob  piece\n     1      44") !=
          std::string::npos);
    CHECK(r.output.find("\",\"\n") != std::string::npos);
    // At the sampling stage the logits are one row; elsewhere top explains where it works.
    CHECK(r.output.find("top 2 of 4096 logits:\n") != std::string::npos);
}

TEST_CASE("CLI --dry-run: Llama 3.1 8B's shapes, without its weights, in seconds", "[cli][dryrun]") {
    fs::path log = fs::temp_directory_path() / "llama_cli_dry_run_8b.log";
    auto t0 = std::chrono::steady_clock::now();
    // "Hello" is BOS + 5 bytes with the synthetic tokenizer: a prefill of 6 positions, then one decode step.
    CliRun r = runWalkthrough("--synthetic llama3.1-8b --dry-run -q -p Hello -n 2 --debug-log " + log.string(), "");
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(seconds < 10);  // a loose functional bound: no 16 GB of arithmetic happened
    std::stringstream text;
    text << std::ifstream(log).rdbuf();
    const std::string s = text.str();
    for (const char* line : {
             "Reshaping results, xq: shape([6 32 128]), xk: shape([6 8 128]), xv: shape([6 8 128])",
             "attentionRepeatKV with N_Rep = 4 (32 query heads / 8 KV heads), keys: shape([6 32 128]), values: shape([6 32 128])",
             "Multiple transposing results, xq: shape([32 6 128]), keys: shape([32 128 6]), values: shape([32 6 128])",
             "Calling ml.Silu for h shape([6 14336])",
             "Returning tensor output: shape([6 128256])",
             // The decode step: one new position, seven cached.
             "Reading cached positions [0, 7): keys: shape([7 8 128])",
             "Calling ml.MatMul for scores shape([32 1 7]) and values shape([32 7 128])",
             "Dry run: no logits were computed",
         })
        CHECK(contains(s, line));
}

TEST_CASE("CLI --dry-run of a model directory reads only params.json and tokenizer.model", "[cli][dryrun]") {
    fs::path dir = fs::temp_directory_path() / "llama_cli_dry_run_dir";
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* f : {"params.json", "tokenizer.model"}) fs::copy_file(fs::path(ASSETS_DIR) / "model" / f, dir / f);
    CliRun r = runWalkthrough("--model " + dir.string() + " --dry-run -n 1", "");
    INFO(r.output);
    CHECK(r.exitCode == 0);
    CHECK(contains(r.output, "dry run: shape-only weights"));
    CHECK(contains(r.output, "stopped by: max tokens"));
    fs::remove_all(dir);
}

TEST_CASE("CLI --trace records a run the reader loads", "[cli][trace]") {
    fs::path file = fs::temp_directory_path() / "llama_cli_trace.trace";
    CliRun r = runWalkthrough("--synthetic tiny -q -p Hello -n 2 --trace " + file.string() + " --trace-attention 2", "");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(contains(r.output, "Trace written to " + file.string()));
    TraceRun run = readTrace(file.string());
    CHECK(run.run.prompt == "Hello");
    CHECK(run.generatedTokens.size() == 2);
    CHECK(run.options.attentionLayers == std::set<int>{1});
    for (const auto& s : run.stages)
        if (s.stage == StageId::ScoresSoftmax) CHECK(s.tensor("scores")->hasValues() == (s.layer == 1));
    fs::remove(file);
}
