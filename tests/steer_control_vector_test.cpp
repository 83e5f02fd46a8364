// Control vectors: llama.cpp's GGUF layout read and written, bad files refused naming the file and
// tensor, and `cvector`'s mean difference against llama.cpp's cvector-generator.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "cli_run.h"
#include "formats/gguf/gguf_control_vector.h"

using namespace llama;
namespace fs = std::filesystem;

namespace {
const std::string kSteer = std::string(TEST_FIXTURES_DIR) + "/steer/";

struct TempDir {
    fs::path path = fs::temp_directory_path() / ("llama_cvector_" + std::to_string(getpid()));
    TempDir() { fs::create_directories(path); }
    ~TempDir() { fs::remove_all(path); }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string readError(const std::string& path) {
    try {
        readControlVectorFile(path);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(read)";
}
}  // namespace

TEST_CASE("control vector: what is written is read back, direction by direction", "[steer][cvector]") {
    TempDir dir;
    const std::map<int, std::vector<float>> directions = {{1, {1.5f, -2.0f, 0.25f}}, {2, {0.0f, 3.0f, -1e-7f}}};
    writeControlVectorFile(dir.file("v.gguf"), directions, "llama");
    CHECK(readControlVectorFile(dir.file("v.gguf")) == directions);
    // Two files scaled and summed, kept to layer 3 (direction.2).
    auto s = loadSteering({{dir.file("v.gguf"), 2.0f}, {dir.file("v.gguf"), -0.5f}}, std::pair{3, 3});
    CHECK(s->dim == 3);
    REQUIRE(s->directions.size() == 1);
    REQUIRE(s->directionFor(2));
    CHECK(s->directionFor(2)->data<float>()[1] == 4.5f);
    CHECK(s->directionFor(1) == nullptr);
    CHECK(s->describe() == fmt::format("--control-vector {0}:2 --control-vector {0}:-0.5 --control-vector-layers 3-3", dir.file("v.gguf")));
}

TEST_CASE("control vector: bad files are refused naming the file and the tensor", "[steer][cvector][hostile]") {
    TempDir dir;
    auto write = [&](const std::string& name, const std::map<int, std::vector<float>>& d) {
        writeControlVectorFile(dir.file(name), d, "llama");
        return dir.file(name);
    };
    const float nan = std::numeric_limits<float>::quiet_NaN();
    CHECK_THAT(readError(write("nan.gguf", {{1, {1, nan}}})), Catch::Contains("nan.gguf: direction.1[1] is nan: every value must be a finite number"));
    CHECK_THAT(readError(write("gap.gguf", {{1, {1}}, {3, {1}}})), Catch::Contains("gap.gguf: direction.2 is missing"));
    CHECK_THAT(readError(write("zero.gguf", {{0, {1}}})), Catch::Contains("zero.gguf: direction.0: llama.cpp counts control-vector layers from 1"));
    CHECK_THAT(readError(write("ragged.gguf", {{1, {1, 2}}, {2, {1}}})), Catch::Contains("ragged.gguf: direction.2 has 1 floats, but direction.1 has 2"));
    std::ofstream(dir.file("text.gguf")) << "direction.1 = [1, 2, 3]\n";
    CHECK_THAT(readError(dir.file("text.gguf")), Catch::Contains("text.gguf"));
    CHECK_THAT(readError(dir.file("absent.gguf")), Catch::Contains("absent.gguf"));
    // A model, not a control vector.
    auto r = runWalkthrough("convert --synthetic tiny --to gguf-f32 --out " + dir.file("model.gguf"));
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(readError(dir.file("model.gguf")), Catch::Contains("model.gguf: general.architecture is 'llama', not 'controlvector'"));
    // Layers asked for that no file has.
    const auto ok = write("ok.gguf", {{1, {1}}, {2, {1}}});
    CHECK_THROWS_WITH(loadSteering({{ok, 1.0f}}, std::pair{2, 5}), Catch::Contains("--control-vector-layers 2-5: no file has a direction for layer 4"));
    CHECK_THROWS_WITH(loadSteering({{ok, 1.0f}}, std::pair{1, 2}), Catch::Contains("never steer the first layer"));
    CHECK_THROWS_WITH(loadSteering({{ok, 1.0f}, {write("wide.gguf", {{1, {1, 2}}}), 1.0f}}, std::nullopt),
                      Catch::Contains("wide.gguf: its directions have 2 floats, but ") && Catch::Contains("ok.gguf's have 1"));
}

TEST_CASE("control vector: cvector's mean difference is llama.cpp's cvector-generator's, one layer on", "[steer][cvector][llamacpp]") {
    // Single-token prompts, so llama.cpp's average over the positions of padded pairs is the last
    // position's difference; its direction.N+1 holds block N's difference, ours direction.N.
    TempDir dir;
    REQUIRE(runWalkthrough("convert --model " + std::string(ASSETS_DIR) + "/model --to gguf-f32 --out " + dir.file("m.gguf")).exitCode == 0);
    const std::string prompts = std::string(CHAPTERS_DIR) + "/code/joy_";  // chapter 20's prompt files
    auto r = runWalkthrough("cvector --model " + dir.file("m.gguf") + " --positive " + prompts + "positive.txt --negative " + prompts +
                            "negative.txt --unit -o " + dir.file("joy.gguf"));
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.output, Catch::Contains("8 positive and 8 negative prompts") && Catch::Contains("    8  direction.7"));
    const auto ours = readControlVectorFile(dir.file("joy.gguf"));
    const auto committed = readControlVectorFile(kSteer + "joy.gguf");  // what llama-cli ran with for the goldens
    const auto theirs = readControlVectorFile(kSteer + "joy_llamacpp.gguf");
    REQUIRE(ours.size() == 7);
    REQUIRE(theirs.size() == 7);
    for (const auto& [n, values] : ours) {
        INFO("direction." << n);
        double norm = 0;
        for (size_t i = 0; i < values.size(); ++i) {
            norm += double(values[i]) * values[i];
            CHECK(values[i] == Approx(committed.at(n)[i]).margin(1e-6));
            if (n + 1 <= 7) CHECK(values[i] == Approx(theirs.at(n + 1)[i]).margin(2e-4));
        }
        CHECK(norm == Approx(1.0).epsilon(1e-5));
    }
}
