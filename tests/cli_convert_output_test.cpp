// `convert` never damages a file: it refuses to write over the model it reads, writes under a
// temporary name renamed into place only when complete, and reports write errors (regressions
// for a run that wrote a GGUF file over itself: SIGBUS, and the input truncated to 165 KB).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cli_run.h"
#include "test_files.h"

namespace fs = std::filesystem;

namespace {

// A scratch directory holding a copy of the bundled model and a small GGUF made from it.
struct ConvertScratch {
    fs::path dir = fs::temp_directory_path() / ("llama_convert_output_" + std::to_string(::getpid()));
    ConvertScratch() {
        fs::remove_all(dir);
        fs::create_directories(dir);
        fs::copy(std::string(ASSETS_DIR) + "/model", dir / "model");
    }
    ~ConvertScratch() { fs::remove_all(dir); }
    fs::path gguf() {
        fs::path file = dir / "model-q8_0.gguf";
        if (!fs::exists(file)) REQUIRE(runWalkthrough("convert --model " + (dir / "model").string() + " --to gguf-q8_0 --out " + file.string()).exitCode == 0);
        return file;
    }
    bool hasTemporaryFiles() const {
        for (const auto& e : fs::recursive_directory_iterator(dir))
            if (contains(e.path().filename().string(), ".tmp-")) return true;
        return false;
    }
};

}  // namespace

TEST_CASE("convert refuses to write over the model it reads", "[cli][convert][errors]") {
    ConvertScratch s;
    SECTION("a GGUF file as its own output") {
        const fs::path file = s.gguf();
        const std::string before = readFile(file);
        CliRun r = runWalkthrough("convert --model " + file.string() + " --to gguf-q4_0 --out " + file.string());
        INFO(r.output);
        CHECK(r.exitCode == 1);
        CHECK(contains(r.output, "is a file this run reads"));
        CHECK(readFile(file) == before);
    }
    SECTION("a file of the model directory as the output") {
        const fs::path checkpoint = s.dir / "model" / "consolidated.00.pth";
        const std::string before = readFile(checkpoint);
        CliRun r = runWalkthrough("convert --model " + (s.dir / "model").string() + " --to gguf-q8_0 --out " + checkpoint.string());
        INFO(r.output);
        CHECK(r.exitCode == 1);
        CHECK(contains(r.output, "is a file this run reads"));
        CHECK(readFile(checkpoint) == before);
    }
    CHECK_FALSE(s.hasTemporaryFiles());
}

TEST_CASE("convert reports a failed write and leaves no partial file", "[cli][convert][errors]") {
    ConvertScratch s;
    const std::string model = s.gguf().string();
    SECTION("a full device is written in place, not replaced, and the error is reported") {
        CliRun r = runWalkthrough("convert --model " + model + " --to gguf-q8_0 --out /dev/full");
        INFO(r.output);
        CHECK(r.exitCode == 1);
        CHECK(contains(r.output, "writing '/dev/full' failed"));
        struct stat st {};
        REQUIRE(::stat("/dev/full", &st) == 0);
        CHECK(S_ISCHR(st.st_mode));
    }
    SECTION("an output that is a folder is refused before any work, leaving it as it was") {
        const fs::path taken = s.dir / "taken";
        fs::create_directories(taken / "inside");
        CliRun r = runWalkthrough("convert --model " + model + " --to gguf-q8_0 --out " + taken.string());
        INFO(r.output);
        CHECK(r.exitCode == 1);
        CHECK(contains(r.output, "is a folder; expected a file path"));
        CHECK(fs::is_directory(taken / "inside"));
    }
    SECTION("a missing directory is named") {
        CliRun r = runWalkthrough("convert --model " + model + " --to gguf-q8_0 --out " + (s.dir / "missing" / "x.gguf").string());
        INFO(r.output);
        CHECK(r.exitCode == 1);
        CHECK(contains(r.output, "its folder '" + (s.dir / "missing").string() + "' does not exist"));
    }
    CHECK_FALSE(s.hasTemporaryFiles());
}
