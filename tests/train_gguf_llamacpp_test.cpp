// The GGUF `llama-walkthrough train` writes runs in llama.cpp: on a tiny model trained again here,
// this engine's greedy text is llama-cli's (c392e5094), committed by
// tests/fixtures/train/make_llamacpp_golden.py, which also runs both live where LLAMA_CPP_BIN
// points at llama.cpp's build/bin (the CTest test "train: llama-cli ...", skipped elsewhere).
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_run.h"

namespace fs = std::filesystem;

TEST_CASE("train: the GGUF it writes gives llama.cpp's greedy text in this engine", "[train][cli][gguf][llamacpp]") {
    std::ifstream in(std::string(TEST_FIXTURES_DIR) + "/train/llamacpp_golden.json");
    REQUIRE(in);
    const nlohmann::json golden = nlohmann::json::parse(in);
    const fs::path out = fs::temp_directory_path() / ("llama_train_gguf_" + std::to_string(getpid()));
    fs::remove_all(out);
    std::string args;
    for (const std::string arg : golden["train"]) args += " " + (arg.starts_with("assets/") ? std::string(SOURCE_DIR) + "/" + arg : arg);
    const CliRun trained = runWalkthrough(args + " --out " + out.string());
    INFO(trained.output);
    REQUIRE(trained.exitCode == 0);
    REQUIRE(golden["cases"].size() == 3);
    for (const auto& c : golden["cases"]) {
        const std::string prompt = c["prompt"];
        INFO(prompt);
        const CliRun r = runWalkthrough("-q --threads 2 --model " + (out / "model.gguf").string() + " -p '" + prompt + "' -n " + std::to_string(c["n"].get<int>()));
        REQUIRE(r.exitCode == 0);
        const auto end = r.output.rfind("\n\nPrompt tokens:");
        REQUIRE(end != std::string::npos);
        CHECK(r.output.substr(0, end) == c["text"].get<std::string>());
    }
    fs::remove_all(out);
}
