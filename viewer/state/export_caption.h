#pragma once
// The caption under an exported panel or slide: what a slide needs to say where the picture
// comes from. Layers and heads are counted from 1, as the debug log and the chapters count them.
#include <string>

namespace llama::viewer {

struct CaptionFacts {
    std::string model;   // "assets/model", "synthetic tinyllama-1.1b"
    std::string prompt;
    int step = -1;       // token step, -1 before a run
    int layer = -1;      // 0-based, -1 outside the blocks
    int layers = 0;
    int head = -1;       // 0-based, -1 when no single head is shown
    int stageNumber = 0;
    std::string stageTitle;
    std::string whatIf;  // WhatIf::describe() of an experiment, empty for the model's own run
    std::string grammar;  // where the run's grammar came from (a file, "grammar", "json"), empty for none
};

// "model assets/model  |  prompt "In the beginning"  |  step 0 (prefill)  |  layer 3/8  |  head 2  |  stage 13 Scores: softmax"
// and, for an experiment, "  |  WHAT-IF --no-mask" at the end, so a slide never passes one off as the model;
// "  |  GRAMMAR json" for a run constrained by a grammar (its text is the grammar's, not the model's free choice).
std::string exportCaption(const CaptionFacts& f, size_t maxPromptChars = 60);

}  // namespace llama::viewer
