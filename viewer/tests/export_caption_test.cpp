// An exported panel's caption counts layers and heads from 1 and keeps long prompts short.
#include <catch2/catch.hpp>

#include "model/what_if.h"
#include "state/export_caption.h"
#include "state/panel_labels.h"

using namespace llama;
using namespace llama::viewer;

TEST_CASE("an export caption names the model, prompt, step, 1-based layer and head, and the stage") {
    CaptionFacts f{"assets/model", "In the beginning", 0, 0, 8, 0, 13, "Scores: softmax"};
    CHECK(exportCaption(f) ==
          "model assets/model  |  prompt \"In the beginning\"  |  step 0 (prefill)  |  layer 1/8  |  head 1  |  stage 13 Scores: softmax");
    f.step = 2, f.layer = -1, f.head = -1, f.stageNumber = 20, f.stageTitle = "Sampling";
    CHECK(exportCaption(f) == "model assets/model  |  prompt \"In the beginning\"  |  step 2 (decode)  |  stage 20 Sampling");
    f.prompt = "a very long prompt\nwith a second line";
    CHECK(exportCaption(f, 10).find("prompt \"a very lo...\"") != std::string::npos);
}

TEST_CASE("an export caption of a what-if experiment says so") {
    WhatIf w;
    w.noMask = true;
    w.skipLayers = {2};
    CaptionFacts f{"assets/model", "hi", 0, 1, 8, -1, 12, "Adding the mask", w.describe()};
    const std::string caption = exportCaption(f);
    CHECK(caption.find("  |  WHAT-IF " + w.describe()) != std::string::npos);
    CHECK(caption.find("--no-mask") != std::string::npos);
    f.whatIf.clear();
    CHECK(exportCaption(f).find("WHAT-IF") == std::string::npos);
}

TEST_CASE("the model is named by where it is, then its format") {
    CHECK(modelLabel("Meta consolidated.00.pth", "model") == "model (Meta consolidated.00.pth)");
    CHECK(modelLabel("", "assets/model") == "assets/model");  // before it is loaded
    CHECK(modelLabel("GGUF", "") == "GGUF");
    CHECK(modelLabel("trace of GGUF", "trace run.trace (replay)") == "trace run.trace (replay), trace of GGUF");
}
