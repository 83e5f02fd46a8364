// The GGUF `llama-walkthrough train` writes runs in llama.cpp: on a tiny model train wrote
// (tests/fixtures/train/tiny_trained.gguf), this engine's greedy text is llama-cli's (c392e5094),
// both committed by tests/fixtures/train/make_llamacpp_golden.py, which also trains one anew and
// runs both live where LLAMA_CPP_BIN points at llama.cpp's build/bin (the CTest test
// "train: llama-cli gives ...", skipped elsewhere). A model trained again today is another model
// (rounding grows over 200 steps), but train still writes the committed file's layout.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "formats/gguf/gguf_file.h"

namespace fs = std::filesystem;

namespace {

nlohmann::json golden() {
    std::ifstream in(std::string(TEST_FIXTURES_DIR) + "/train/llamacpp_golden.json");
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

// What a GGUF holds besides its tensors' values: every metadata key, and each tensor's name, type and shape.
std::string layoutOf(const std::string& path) {
    const llama::GgufFile file = llama::GgufFile::open(path);
    std::string out;
    for (const auto& [key, value] : file.metadata()) out += key + "\n";
    for (const auto& t : file.tensors()) out += fmt::format("{} {} {}\n", t.name, t.ggmlType, llama::shapeToString(t.shape));
    return out;
}

}  // namespace

TEST_CASE("train: the GGUF it wrote gives llama.cpp's greedy text in this engine", "[train][cli][gguf][llamacpp]") {
    const nlohmann::json g = golden();
    const std::string gguf = std::string(TEST_FIXTURES_DIR) + "/train/" + g["gguf"].get<std::string>();
    REQUIRE(g["cases"].size() == 3);
    for (const auto& c : g["cases"]) {
        const std::string prompt = c["prompt"];
        INFO(prompt);
        const CliRun r = runWalkthrough("-q --threads 2 --model " + gguf + " -p '" + prompt + "' -n " + std::to_string(c["n"].get<int>()));
        REQUIRE(r.exitCode == 0);
        const auto end = r.output.rfind("\n\nPrompt tokens:");
        REQUIRE(end != std::string::npos);
        CHECK(r.output.substr(0, end) == c["text"].get<std::string>());
    }
}

TEST_CASE("train: a run of the golden's recipe writes a GGUF laid out as the committed one", "[train][cli][gguf]") {
    const nlohmann::json g = golden();
    const fs::path out = fs::temp_directory_path() / ("llama_train_gguf_" + std::to_string(getpid()));
    fs::remove_all(out);
    std::string args;
    for (const std::string arg : g["train"]) args += " " + (arg.starts_with("assets/") ? std::string(SOURCE_DIR) + "/" + arg : arg);
    const CliRun trained = runWalkthrough(args + " --out " + out.string());
    INFO(trained.output);
    REQUIRE(trained.exitCode == 0);
    CHECK(layoutOf((out / "model.gguf").string()) == layoutOf(std::string(TEST_FIXTURES_DIR) + "/train/" + g["gguf"].get<std::string>()));
    fs::remove_all(out);
}
