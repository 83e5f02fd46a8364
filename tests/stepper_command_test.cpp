// The terminal stepper's pure parts: the command line parser and the tensor printer.
#include <catch2/catch.hpp>

#include <limits>

#include "stepper.h"

using namespace llama;
using namespace llama::cli;
using K = StepCommand::Kind;

TEST_CASE("stepper: single-letter commands and Enter", "[step][cli]") {
    CHECK(parseStepCommand("").kind == K::NextStage);
    CHECK(parseStepCommand("   \r").kind == K::NextStage);
    CHECK(parseStepCommand("l").kind == K::NextLayer);
    CHECK(parseStepCommand(" t ").kind == K::NextToken);
    CHECK(parseStepCommand("c").kind == K::Continue);
    CHECK(parseStepCommand("h").kind == K::Help);
    CHECK(parseStepCommand("q").kind == K::Quit);
    StepCommand bad = parseStepCommand("go");
    CHECK(bad.kind == K::Invalid);
    CHECK(bad.error.find("unknown command 'go'") != std::string::npos);
    CHECK(parseStepCommand("l 2").kind == K::Invalid);
}

TEST_CASE("stepper: breakpoints by key, by number, with a 1-based layer", "[step][cli]") {
    StepCommand c = parseStepCommand("b scores_softmax");
    REQUIRE(c.kind == K::Break);
    REQUIRE(c.breakpoints.size() == 1);
    CHECK(c.breakpoints[0].stage == StageId::ScoresSoftmax);
    CHECK_FALSE(c.breakpoints[0].layer);

    c = parseStepCommand("b scores_softmax 3");
    REQUIRE(c.breakpoints.size() == 1);
    CHECK(c.breakpoints[0].layer == 2);

    c = parseStepCommand("b 13");
    REQUIRE(c.breakpoints.size() == 4);
    CHECK(c.breakpoints[0].stage == StageId::ScoresMatMul);
    CHECK(c.breakpoints[3].stage == StageId::ScoresSoftmax);

    c = parseStepCommand("b 11 2");
    REQUIRE(c.breakpoints.size() == 3);
    for (const auto& b : c.breakpoints) CHECK(b.layer == 1);

    CHECK(parseStepCommand("b nope").error.find("unknown stage 'nope'") != std::string::npos);
    CHECK(parseStepCommand("b 42").error.find("no stage has number 42") != std::string::npos);
    CHECK(parseStepCommand("b scores_softmax 0").kind == K::Invalid);
    CHECK(parseStepCommand("b sample 2").error.find("outside the transformer blocks") != std::string::npos);
    CHECK(parseStepCommand("b").kind == K::Invalid);
}

TEST_CASE("stepper: print with an optional index", "[step][cli]") {
    StepCommand c = parseStepCommand("p xq");
    REQUIRE(c.kind == K::Print);
    CHECK(c.tensor == "xq");
    CHECK(c.index == 0);
    c = parseStepCommand("p scores 2");
    CHECK(c.tensor == "scores");
    CHECK(c.index == 2);
    CHECK(parseStepCommand("p").kind == K::Invalid);
    CHECK(parseStepCommand("p scores -1").kind == K::Invalid);
    CHECK(parseStepCommand("p scores x").kind == K::Invalid);
}

TEST_CASE("stepper: tensor slices are aligned, indexed and elided", "[step][cli]") {
    Tensor t({2, 2, 3}, DType::F32);
    float* d = t.mutableData<float>();
    for (int i = 0; i < 12; ++i) d[i] = float(i);
    d[6] = -std::numeric_limits<float>::infinity();
    CHECK(formatTensorSlice("s", t, 1) ==
          "s [2 2 3] F32, [1]\n"
          "        0   1   2\n"
          "[0]  -inf   7   8\n"
          "[1]     9  10  11\n");
    CHECK(formatTensorSlice("s", t, 2).find("out of range") != std::string::npos);

    Tensor big({20, 30}, DType::BF16);
    std::string s = formatTensorSlice("big", big);
    CHECK(s.find("[19]") != std::string::npos);
    CHECK(s.find("[10]") == std::string::npos);
    CHECK(s.find("…") != std::string::npos);
    CHECK(s.find(" 29") != std::string::npos);

    CHECK(formatTensorSlice("xq", Tensor::shapeOnly({6, 32, 128}, DType::BF16)).find("no values (dry run") != std::string::npos);
}
