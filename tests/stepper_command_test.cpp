// The terminal stepper's pure parts: the command line parser and the tensor printer.
#include <catch2/catch.hpp>

#include <limits>

#include <fmt/format.h>

#include <cmath>

#include "session/model_source.h"
#include "stepper.h"
#include "tensor_text.h"

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

    // Stage 13's four forward stages, then the three a training step undoes them with.
    c = parseStepCommand("b 13");
    REQUIRE(c.breakpoints.size() == 7);
    CHECK(c.breakpoints[0].stage == StageId::ScoresMatMul);
    CHECK(c.breakpoints[3].stage == StageId::ScoresSoftmax);
    CHECK(c.breakpoints[6].stage == StageId::ScoresMatMulBackward);

    c = parseStepCommand("b 11 2");
    REQUIRE(c.breakpoints.size() == 4);
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

TEST_CASE("stepper: print one row in full", "[step][cli]") {
    StepCommand c = parseStepCommand("p x row 3");
    REQUIRE(c.kind == K::Print);
    CHECK(c.tensor == "x");
    CHECK(c.index == 0);
    CHECK(c.row == 3);
    c = parseStepCommand("p scores 2 row 4");
    CHECK(c.index == 2);
    CHECK(c.row == 4);
    CHECK_FALSE(parseStepCommand("p scores 2").row);
    CHECK(parseStepCommand("p x row -1").error.find("row '-1' is not a number >= 0") != std::string::npos);
    CHECK(parseStepCommand("p x 1 2 row 3").kind == K::Invalid);

    // Every column of the row, 8 a line, each line led by its first column's index.
    Tensor t({2, 3, 10}, DType::F32);
    float* d = t.mutableData<float>();
    for (int i = 0; i < 60; ++i) d[i] = float(i) + 0.125f;
    CHECK(formatTensorRow("s", t, 1, 2) ==
          "s [2 3 10] F32, [1], row 2: all 10 columns\n"
          "    0:       50.125       51.125       52.125       53.125       54.125       55.125       56.125       57.125\n"
          "    8:       58.125       59.125\n");
    CHECK(formatTensorRow("s", t, 1, 3) == "s [2 3 10] F32, [1]: row 3 is out of range (0-2)\n");
    CHECK(formatTensorRow("s", t, 2, 0).find("index 2 is out of range") != std::string::npos);
    // A 1-D tensor (a norm's weights) is row 0.
    Tensor w({3}, DType::F32);
    w.mutableData<float>()[2] = 1.0f / 3.0f;
    CHECK(formatTensorRow("w", w, 0, 0) == "w [3] F32, row 0: all 3 columns\n    0:            0            0     0.333333\n");
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
    // Heads first (stages 12-14): INDEX is a head counted from 1, as --ablate-head counts.
    CHECK(formatTensorSlice("s", t, 2, 8, 8, {}, true) ==
          "s [2 2 3] F32, head 2\n"
          "        0   1   2\n"
          "[0]  -inf   7   8\n"
          "[1]     9  10  11\n");
    CHECK(formatTensorSlice("s", t, 0, 8, 8, {}, true) == "s [2 2 3] F32: head 0 is out of range (heads are counted from 1: 1-2)\n");
    CHECK(formatTensorSlice("s", t, 3, 8, 8, {}, true).find("head 3 is out of range") != std::string::npos);
    CHECK(formatTensorRow("s", t, 1, 1, true).rfind("s [2 2 3] F32, head 1, row 1: all 3 columns\n", 0) == 0);
    CHECK(parseStepCommand("p scores 2").indexGiven);
    CHECK_FALSE(parseStepCommand("p scores").indexGiven);

    Tensor big({20, 30}, DType::BF16);
    std::string s = formatTensorSlice("big", big);
    CHECK(s.find("[19]") != std::string::npos);
    CHECK(s.find("[10]") == std::string::npos);
    CHECK(s.find("…") != std::string::npos);
    CHECK(s.find(" 29") != std::string::npos);

    CHECK(formatTensorSlice("xq", Tensor::shapeOnly({6, 32, 128}, DType::BF16)).find("no values (dry run") != std::string::npos);
}

TEST_CASE("stepper: top [K]", "[step][cli]") {
    StepCommand c = parseStepCommand("top");
    REQUIRE(c.kind == K::Top);
    CHECK(c.index == 10);
    CHECK(parseStepCommand("top 3").index == 3);
    CHECK(parseStepCommand("top 0").error.find("K '0' is not a number from 1 to 1000") != std::string::npos);
    CHECK(parseStepCommand("top 2 3").kind == K::Invalid);
}

TEST_CASE("stepper: a slice labelled with tokens, rows left-aligned", "[step][cli]") {
    Tensor t({2, 2}, DType::F32);
    float* d = t.mutableData<float>();
    d[0] = 0.5f, d[1] = 0.25f, d[2] = 1.0f, d[3] = 2.0f;
    CHECK(formatTensorSlice("mask", t, 0, 8, 8, {{"\"a\"", "\"bc\""}, {"\"x\"", "\"yz\""}}) ==
          "mask [2 2] F32\n"
          "          0 \"x\"  1 \"yz\"\n"
          "[0] \"a\"     0.5    0.25\n"
          "[1] \"bc\"      1       2\n");
    // Labels that do not fit the tensor are not used.
    CHECK(formatTensorSlice("mask", t, 0, 8, 8, {{"\"a\""}, {"\"x\""}}) == formatTensorSlice("mask", t));
}

TEST_CASE("stepper: top K logits with probabilities and pieces (bundled tokenizer)", "[step][cli]") {
    const Model m = loadModelSource({ModelSource::Kind::Files, ASSETS_DIR "/model"}, {.shapesOnly = true});
    Tensor logits({2, 4096}, DType::F32);  // the last row counts
    float* d = logits.mutableData<float>();
    d[4096 + 44] = std::log(3.0f);  // "," three times as likely as each of the others ...
    d[4096 + 58] = std::log(2.0f);  // ":" twice
    d[7] = 100;                     // the first row is ignored
    const std::string top = formatTopLogits(logits, *m.tokenizer, 3);
    const double rest = 3 + 2 + 4094;
    CHECK(top == fmt::format("top 3 of 4096 logits (the last position's row):\n"
                             "  rank      id     logit    prob  piece\n"
                             "     1      44    1.0986  {:.4f}  \",\"\n"
                             "     2      58    0.6931  {:.4f}  \":\"\n"
                             "     3       0    0.0000  {:.4f}  \"\\x00\"\n",
                             3 / rest, 2 / rest, 1 / rest));
    CHECK(formatTopLogits(Tensor::shapeOnly({4096}, DType::F32), *m.tokenizer, 3).find("dry run") != std::string::npos);
}
