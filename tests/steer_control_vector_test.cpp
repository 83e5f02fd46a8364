// Control vectors: llama.cpp's GGUF layout read and written, bad files refused naming the file and
// tensor, `cvector`'s mean difference against llama.cpp's cvector-generator, and --method pca.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "formats/gguf/gguf_control_vector.h"
#include "steer/control_vector_maker.h"
#include "test_files.h"

using namespace llama;
namespace fs = std::filesystem;

namespace {
const std::string kSteer = std::string(TEST_FIXTURES_DIR) + "/steer/";

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
    TempDir dir("llama_cvector");
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
    TempDir dir("llama_cvector");
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
    TempDir dir("llama_cvector");
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

TEST_CASE("control vector: the first principal direction is the exact one (tests/fixtures/steer/pca_golden.py)", "[steer][cvector]") {
    std::ifstream in(kSteer + "pca_golden.json");
    REQUIRE(in);
    const auto golden = nlohmann::json::parse(in);
    const auto rows = golden["rows"].get<std::vector<std::vector<double>>>();
    const auto want = golden["direction"].get<std::vector<double>>();
    std::vector<double> mean(want.size(), 0.0);
    for (const auto& r : rows)
        for (size_t i = 0; i < r.size(); ++i) mean[i] += r[i] / double(rows.size());
    const auto got = firstPrincipalDirection(rows, mean);
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).margin(1e-6));
    // From the other side it comes out pointing the same way: the sign follows the start.
    std::vector<double> opposite = mean;
    for (double& x : opposite) x = -x;
    const auto flipped = firstPrincipalDirection(rows, opposite);
    for (size_t i = 0; i < got.size(); ++i) CHECK(flipped[i] == Approx(-want[i]).margin(1e-6));
}

TEST_CASE("control vector: cvector --method pca writes each layer's principal direction, norm 1, the mean difference's way",
          "[steer][cvector]") {
    // llama.cpp's generator is not the reference here: at c392e5094, on these pairs, three of the
    // six directions it returns are nearly orthogonal to every pair's difference (docs/cli.md).
    TempDir dir("llama_cvector");
    const std::string prompts = std::string(CHAPTERS_DIR) + "/code/joy_";  // chapter 20's prompt files
    auto r = runWalkthrough("cvector --positive " + prompts + "positive.txt --negative " + prompts + "negative.txt --method pca -o " +
                            dir.file("pca.gguf"));
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.output, Catch::Contains("first principal direction") && Catch::Contains("each direction written with norm 1"));
    const auto ours = readControlVectorFile(dir.file("pca.gguf"));
    const auto mean = readControlVectorFile(kSteer + "joy.gguf");  // the mean differences, norm 1
    REQUIRE(ours.size() == 7);
    for (const auto& [n, values] : ours) {
        INFO("direction." << n);
        double norm = 0, alongMean = 0;
        for (size_t i = 0; i < values.size(); ++i) {
            norm += double(values[i]) * values[i];
            alongMean += double(values[i]) * mean.at(n)[i];
        }
        CHECK(norm == Approx(1.0).epsilon(1e-5));
        CHECK(alongMean > 0.2);   // the mean difference's way ...
        CHECK(alongMean < 0.99);  // ... and not the mean difference itself
    }
}

TEST_CASE("control vector: cvector --method pca needs prompt pairs and no --unit", "[steer][cvector][hostile]") {
    TempDir dir("llama_cvector");
    const std::string prompts = std::string(CHAPTERS_DIR) + "/code/joy_";
    std::ofstream(dir.file("three.txt")) << "a\nb\nc\n";
    auto r = runWalkthrough("cvector --positive " + prompts + "positive.txt --negative " + dir.file("three.txt") + " --method pca -o " +
                            dir.file("x.gguf"));
    requireOneClearError(r, "--method pca pairs the prompt files line by line, as llama.cpp's generator does: 8 positive and 3 negative prompts");
    r = runWalkthrough("cvector --positive " + prompts + "positive.txt --negative " + prompts + "negative.txt --method pca --unit -o " +
                       dir.file("x.gguf"));
    requireOneClearError(r, "--unit applies to --method mean");
    r = runWalkthrough("cvector --positive " + prompts + "positive.txt --negative " + prompts + "negative.txt --method svd -o " + dir.file("x.gguf"));
    CHECK(r.exitCode != 0);
    CHECK_THAT(r.output, Catch::Contains("--method"));
    CHECK_FALSE(std::filesystem::exists(dir.file("x.gguf")));
}
