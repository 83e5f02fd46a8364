#pragma once
// What a script's `expect NAME VALUE` reads: facts about the run and the panels, computed from the
// same state the panels draw from, so a test walks the viewer and checks what a learner would see
// (the held stage, the step the Top logits panel shows, a timeline title) without reading pixels.
#include <string>
#include <string_view>
#include <vector>

#include "state/capture_observer.h"
#include "state/engine_session.h"
#include "state/view_state.h"

namespace llama::viewer {

// Every fact's name, with what it says (for --help-script and the error of an unknown name).
const std::vector<std::pair<std::string_view, std::string_view>>& scriptFactNames();

// The fact's value as text ("none" when there is none). `layers`: the model's (0 for a trace's,
// then the records say). Throws std::invalid_argument for an unknown name.
// `comparison`: the traces the Compare panel pairs (nullptr when none).
// `trace`: the trace replayed (nullptr for a live run), whose batch records the batch-* facts read.
// `patch`: a patch trace's grid (nullptr when none).
std::string scriptFact(std::string_view name, const HistorySnapshot& snap, const ViewState& view, const SessionStatus& status, int layers,
                       const TraceComparison* comparison = nullptr, const TraceRun* trace = nullptr, const PatchGrid* patch = nullptr);

}  // namespace llama::viewer
