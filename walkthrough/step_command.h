#pragma once
// The stepper's commands (`llama-walkthrough --step`): one typed line into what it asks for, and
// the help that lists them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stages/step_controller.h"

namespace llama::cli {

struct StepCommand {
    enum class Kind { NextStage, NextLayer, NextToken, Continue, Break, Print, Lens, Top, Help, Quit, Invalid };
    Kind kind = Kind::Invalid;
    std::vector<Breakpoint> breakpoints;  // Break: one per stage it names (a number names several)
    std::string tensor;                   // Print: a tensor of the current stage
    int64_t index = 0;                    // Print: which slice of a 3-D tensor (a head from 1); Lens, Top: K
    bool indexGiven = false;              // Print: INDEX was typed
    std::optional<int64_t> row;           // Print: one row in full, every column (`p NAME [INDEX] row R`)
    std::string error;                    // Invalid: what was wrong, for the user
};

// One typed line: "" next stage, "l" next layer, "t" next token, "c" continue, "b STAGE [LAYER]",
// "p NAME [INDEX] [row R]", "top [K]", "h", "q". STAGE is a key (scores_softmax) or a number (13 = all of its stages);
// LAYER is 1-based, as the log prints layers.
StepCommand parseStepCommand(std::string_view line);

extern const char* const kStepHelp;

}  // namespace llama::cli
