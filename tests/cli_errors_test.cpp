// The CLI on bad input: a non-zero exit and one clear message, never a crash.
#include <catch2/catch.hpp>

#include "cli_run.h"
#include "formats_fixtures.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

namespace {
// A copy of the bundled model's directory that a test may break.
fs::path modelCopy(const std::string& name) {
    fs::path dir = fs::temp_directory_path() / ("llama_cli_test_" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* f : {"params.json", "tokenizer.model", "consolidated.00.pth"})
        fs::copy_file(fs::path(ASSETS_DIR) / "model" / f, dir / f);
    return dir;
}

}  // namespace

TEST_CASE("CLI: missing model directory", "[cli][errors]") {
    requireOneClearError(runWalkthrough("--model /nonexistent/model --prompt hi"), "'/nonexistent/model' does not exist");
}

TEST_CASE("CLI: directory without the model files", "[cli][errors]") {
    fs::path dir = modelCopy("missing");
    fs::remove(dir / "consolidated.00.pth");
    requireOneClearError(runWalkthrough("--model " + dir.string() + " --prompt hi"), "missing consolidated.00.pth");
}

TEST_CASE("CLI: broken params.json", "[cli][errors]") {
    fs::path dir = modelCopy("params");
    std::ofstream(dir / "params.json") << R"({"dim": 64, "n_layers": )";
    requireOneClearError(runWalkthrough("--model " + dir.string() + " --prompt hi"), "params.json: not valid JSON");
}

TEST_CASE("CLI: truncated checkpoint", "[cli][errors]") {
    fs::path dir = modelCopy("truncated");
    fs::resize_file(dir / "consolidated.00.pth", fs::file_size(dir / "consolidated.00.pth") / 2);
    requireOneClearError(runWalkthrough("--model " + dir.string() + " --prompt hi"), "consolidated.00.pth");
}

TEST_CASE("CLI: prompt longer than the context", "[cli][errors]") {
    std::string prompt(400, 'a');
    for (size_t i = 1; i < prompt.size(); i += 2) prompt[i] = ' ';
    requireOneClearError(runWalkthrough("--model " + std::string(ASSETS_DIR) + "/model --max-seq-len 16 --prompt '" + prompt + "'"),
                         "context length is 16");
}

TEST_CASE("CLI: unknown synthetic preset and bad flag values", "[cli][errors]") {
    requireOneClearError(runWalkthrough("--synthetic huge"), "unknown synthetic preset 'huge'");
    CliRun r = runWalkthrough("--top-p 2");
    INFO(r.output);
    REQUIRE(r.exitCode != 0);
    REQUIRE(r.output.find("--top-p") != std::string::npos);
}

TEST_CASE("CLI: a checkpoint whose pickle nests 200,000 tuples deep is refused by run and inspect", "[cli][errors][hostile]") {
    fs::path dir = modelCopy("deep_pickle");
    const std::string pickle = "\x80\x02)" + std::string(200000, '\x85') + ".";
    std::ofstream(dir / "consolidated.00.pth", std::ios::binary) << formats_test::storedZip("consolidated/data.pkl", pickle);
    for (const std::string command : {"--prompt hi --model ", "inspect --model "})
        requireOneClearError(runWalkthrough(command + dir.string()), "values nest more than 100 deep");
}
