#pragma once
// The script commands that change only state: the next generation's settings (sampling, the
// what-if experiment) and what the panels look at (layer, head, cell, tensor, record), plus the
// arguments of the breakpoint commands. Applied here, without a window, by the viewer's script
// runner (app/script_runner.cpp, which drives the engine, panels and captures) and by the fuzz
// target tests/fuzz/fuzz_viewer_script_state.cpp.
#include <string>
#include <string_view>

#include "options/checked_number.h"
#include "state/engine_session.h"
#include "state/script.h"
#include "state/view_state.h"

namespace llama::viewer {

bool isStateCommand(std::string_view name);
// Applies a command isStateCommand names; a bad value throws std::invalid_argument saying what
// was expected (the script runner names the line and the command).
void applyStateCommand(const ScriptCommand& c, RunSettings& settings, ViewState& view);

// step-to's and breakpoint's arguments: STAGE [LAYER [STEP]].
Breakpoint breakpointArgs(const ScriptCommand& c);
// step-to has arrived: the engine is held where the breakpoint says.
bool breakpointMatches(const Breakpoint& b, const HeldAt& h);

// Script numbers are read as the command line's are (options/checked_number.h): the whole word,
// in the command's range, never NaN; the refusal is the parser's ("expected ..., got '-1'").
int scriptInt(const std::string& word, const ScriptCommand& c, const options::IntegerRange& range);
float scriptFloat(const std::string& word, const ScriptCommand& c, const options::RealRange& range);
inline const options::IntegerRange kScriptIndex{0, 1 << 24, "an index from 0 to 16777216"};

}  // namespace llama::viewer
