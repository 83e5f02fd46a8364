// `bench` through the real CLI: several prompt lengths, --profile, and --llama-bench with stand-in
// llama-bench scripts (a good run replays a captured output, bad ones fail), so no llama.cpp is needed.
#include <catch2/catch.hpp>

#include "cli_run.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>
#include "test_files.h"

namespace fs = std::filesystem;

namespace {

// A refusal (exit code 1, `expected` in what it printed) before anything was measured, which
// would have printed `measuredMark`.
void requireRefusedUnmeasured(const std::string& args, const std::string& expected, const std::string& measuredMark) {
    CliRun r = runWalkthrough(args);
    INFO(r.output);
    CHECK(r.exitCode == 1);
    CHECK(contains(r.output, expected));
    CHECK_FALSE(contains(r.output, measuredMark));
}

const std::string kFastBench = "bench --prompt-tokens 8,16 --decode-tokens 4 --repeat 1 --threads 2";

// Files a test makes in the temp directory (names unique to the process: ctest runs tests in
// parallel), removed when it ends.
struct Scratch {
    std::vector<fs::path> files;
    ~Scratch() {
        for (const auto& f : files) fs::remove(f);
    }
    fs::path file(const std::string& name) {
        files.push_back(fs::temp_directory_path() / ("llama_cli_bench_" + std::to_string(getpid()) + "_" + name));
        return files.back();
    }
    // The tiny preset as a GGUF file.
    std::string tinyGguf() {
        fs::path gguf = file("tiny.gguf");
        CliRun r = runWalkthrough("convert --synthetic tiny --to gguf-bf16 --out " + gguf.string());
        INFO(r.output);
        REQUIRE(r.exitCode == 0);
        return gguf.string();
    }
    // An executable shell script standing in for llama-bench.
    std::string fakeLlamaBench(const std::string& name, const std::string& body) {
        fs::path script = file(name + ".sh");
        std::ofstream(script) << "#!/bin/sh\n" << body << "\n";
        fs::permissions(script, fs::perms::owner_all);
        return script.string();
    }
};

std::string readText(const fs::path& path) {
    std::stringstream text;
    text << std::ifstream(path).rdbuf();
    return text.str();
}
}  // namespace

TEST_CASE("CLI bench --profile: time per kind of op, prefill and decode, for several prompt lengths", "[cli][bench]") {
    CliRun r = runWalkthrough("--synthetic tiny " + kFastBench + " --profile");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(contains(r.output, "bench: 8,16 prompt tokens, 4 decode tokens"));
    CHECK(contains(r.output, "prefill (8 tokens): "));
    CHECK(contains(r.output, "prefill (16 tokens): "));
    CHECK(contains(r.output, "where the time goes (--profile)"));
    CHECK(contains(r.output, "RoPE (applyRotaryEmbeddings)"));
    CHECK(contains(r.output, "attentionRepeatKV"));
    CHECK(contains(r.output, "measured wall time"));
    // tiny has 2 layers of 7 weight matrices, plus the output projection: 15 per forward pass, both phases.
    std::smatch m;
    REQUIRE(std::regex_search(r.output, m, std::regex(R"(\nLinearTransformation +[0-9.]+ +[0-9.]+% +([0-9.]+) +[0-9.]+ +[0-9.]+% +([0-9.]+)\n)")));
    CHECK(m[1] == "15.0");
    CHECK(m[2] == "15.0");
}

TEST_CASE("CLI bench --llama-bench puts llama.cpp's figures next to ours", "[cli][bench]") {
    Scratch scratch;
    const std::string gguf = scratch.tinyGguf();
    const fs::path args = scratch.file("args.txt");
    const std::string exe =
        scratch.fakeLlamaBench("replay", "echo \"$@\" > " + args.string() + "\ncat " TEST_FIXTURES_DIR "/llama_bench/tiny_bf16_p8_16_n4_r2.json");
    CliRun r = runWalkthrough("--model " + gguf + " " + kFastBench + " --llama-bench " + exe);
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(readText(args) == "-m " + gguf + " -t 2 -p 8,16 -n 4 -r 1 -o json\n");
    CHECK(contains(r.output, "ours/llama.cpp"));
    CHECK(std::regex_search(r.output, std::regex(R"(\nprefill \(8 tokens\) +25144\.74 ± 3903\.73 +[0-9.]+ +[0-9.]+\n)")));
    CHECK(std::regex_search(r.output, std::regex(R"(\nprefill \(16 tokens\) +42745\.81 ± 2689\.35 +[0-9.]+ +[0-9.]+\n)")));
    CHECK(std::regex_search(r.output, std::regex(R"(\ndecode \(4 tokens\) +5935\.19 ± 173\.05 +[0-9.]+ +[0-9.]+\n)")));
    CHECK(contains(r.output, "llama.cpp c392e5094: mean ± stddev over 1 run;"));
}

TEST_CASE("CLI bench --llama-bench: a failing llama-bench is reported, our figures stay", "[cli][bench]") {
    Scratch scratch;
    const std::string gguf = scratch.tinyGguf();
    SECTION("it exits with an error") {
        const std::string exe = scratch.fakeLlamaBench("fails", "echo 'llama_model_load: error loading model' >&2\nexit 3");
        CliRun r = runWalkthrough("--model " + gguf + " " + kFastBench + " --llama-bench " + exe);
        INFO(r.output);
        CHECK(r.exitCode == 1);
        CHECK(contains(r.output, "decode:  "));
        CHECK(contains(r.output, "error: llama-bench gave no figures to compare with: it exited with code 3"));
        CHECK(contains(r.output, "  | llama_model_load: error loading model"));
    }
    SECTION("it prints something else than JSON") {
        const std::string exe = scratch.fakeLlamaBench("table", "echo '| model | size |'\necho 'warming up' >&2");
        CliRun r = runWalkthrough("--model " + gguf + " " + kFastBench + " --llama-bench " + exe);
        INFO(r.output);
        CHECK(r.exitCode == 1);
        CHECK(contains(r.output, "decode:  "));
        CHECK(contains(r.output, "llama-bench's output is not valid JSON"));
        CHECK(contains(r.output, "  | warming up"));
    }
}

TEST_CASE("CLI bench --llama-bench needs a GGUF file and an executable, checked before measuring", "[cli][bench][errors]") {
    Scratch scratch;
    const std::string gguf = scratch.tinyGguf();
    auto requireError = [](const std::string& args, const std::string& expected) { requireRefusedUnmeasured(args, "error: " + expected, "run 1:"); };
    requireError("bench --synthetic tiny --llama-bench /bin/true", "--llama-bench runs llama.cpp on the same file");
    requireError("bench --model " ASSETS_DIR "/model --llama-bench /bin/true", "--llama-bench needs --model to be a GGUF file");
    requireError("bench --model " + gguf + " --llama-bench /nonexistent/llama-bench", "--llama-bench '/nonexistent/llama-bench' is not an executable file");
}

TEST_CASE("CLI bench --parallel: bad batch sizes, tools and sizes are refused before measuring", "[cli][bench][batch][errors]") {
    Scratch scratch;
    const std::string gguf = scratch.tinyGguf();
    auto requireRefusal = [](const std::string& args, const std::string& expected) { requireRefusedUnmeasured(args, expected, "S_TG t/s"); };
    for (const char* n : {"0", "257", "x"})
        requireRefusal(std::string("bench --parallel 1,") + n, std::string("--parallel: expected a number of sequences from 1 to 256, got '") + n + "'");
    requireRefusal("bench --parallel 1,4 --prompt-tokens 8,16", "error: bench --parallel takes one --prompt-tokens length");
    requireRefusal("bench --llama-batched-bench /bin/true", "--llama-batched-bench requires --parallel");
    requireRefusal("bench --parallel 2 --llama-batched-bench /bin/true", "error: --llama-batched-bench needs --model to be a GGUF file");
    requireRefusal("bench --parallel 2 --synthetic tiny --llama-batched-bench /bin/true", "error: --llama-batched-bench runs llama.cpp on the same file");
    requireRefusal("bench --parallel 2 --model " + gguf + " --llama-batched-bench /nonexistent/llama-batched-bench",
                   "error: --llama-batched-bench '/nonexistent/llama-batched-bench' is not an executable file");
    // More cells than a context may hold (the product would overflow an int), and more than memory.
    requireRefusal("bench --parallel 256 --prompt-tokens 16777216 --decode-tokens 16777216",
                   "error: 256 sequences of 16777216 + 16777216 tokens need 8589934592 KV cells, more than the 16777216 positions");
    // The bundled model's cells and RoPE table take about 2.3 kB a position: 38 GB here. Each
    // sequence's 65536 positions must fit the context, as plain bench's must.
    requireRefusal("bench --parallel 2 --prompt-tokens 32768 --decode-tokens 32768",
                   "error: --prompt-tokens 32768 + --decode-tokens 32768 exceed the context length 2048 (--max-seq-len)");
    if (double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE)) < 36e9)
        requireRefusal("bench --parallel 256 --prompt-tokens 32768 --decode-tokens 32768 --max-seq-len 65536", "error: a context of 16777216 positions needs");
    else
        WARN("this machine holds 38 GB: the memory refusal of bench --parallel is not tried");
}

TEST_CASE("CLI batch --ubatch: a ubatch size out of range is refused", "[cli][batch][errors]") {
    for (const char* n : {"0", "8193", "-3"}) {
        CliRun r = runWalkthrough(std::string("batch -q -p a --ubatch ") + n);
        INFO(r.output);
        CHECK(r.exitCode != 0);
        CHECK(contains(r.output, std::string("--ubatch: expected a token count from 1 to 8192, got '") + n + "'"));
    }
}
