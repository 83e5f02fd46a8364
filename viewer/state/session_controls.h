#pragma once
// What the viewer's controls do to the engine session, decided without a window: an action (a
// button, a shortcut, a script line) in the session's state becomes one session call; once a
// frame the captured stages are taken into a snapshot and the shown stage is chosen.
#include <memory>
#include <string>
#include <vector>

#include "state/capture_observer.h"
#include "state/engine_session.h"
#include "state/view_state.h"

namespace llama::viewer {

// The session call an action makes. Start* begin a new run with the viewer's settings: running
// past breakpoints (Run), to the first breakpoint (Continue) or held at the first stage.
enum class SessionCall {
    None,
    StartFree,
    StartToBreakpoint,
    StartHeld,
    StartToToken,  // Step token before a run: held at the first token's logits, as it would be in one
    RunFree,
    ContinueRun,
    Step,
    NextLayer,
    NextToken,
    Pause,
    Stop,
    ToggleBreakpoint,
    ToggleLayerBreakpoint,
};

// While the model loads, nothing (the window stays live). Stepping on after a finished run keeps
// it on screen: the session then says how to restart.
SessionCall sessionCallFor(Action action, SessionState state);

// Makes the call: starts use `settings`; stepping follows the engine again (the selection is
// dropped); a breakpoint toggles at the `shown` stage (and, for the layer one, its layer).
void performAction(Action action, EngineSession& session, const RunSettings& settings, ViewState& view, const StageRecord* shown);

// What the Run panel changed since the run shown started ("prompt", "control vector", ...): the
// next run uses it (Restart, Ctrl+R), while Run, Continue and the steps go on with the run's own.
// Empty when nothing changed.
std::vector<std::string> settingsNotInRun(const RunSettings& next, const RunSettings& run);
// The banner's line for them ("Not this run's: the edited prompt, control vector. ..."), or "";
// `going`: the run is held or computing, so Run and the steps continue it.
std::string settingsNotInRunText(const std::vector<std::string>& changed, bool going);

// Why File > Save trace (and Compare with trace, for a live run) cannot be used now, said where
// the greyed menu items are; "" when it can. `replay`: a trace is open; `recorded`: the last live
// run's trace exists; `runRecords`: the run shown was started with "record a trace".
std::string saveTraceUnavailable(SessionState state, bool replay, bool recorded, bool runRecords);

// The prompt and mode the Output panel shows: the run's (a replayed trace's recorded ones), or
// before any live run the Run panel's, which the first run will use (-p's while a model loads).
RunSettings outputSettings(const EngineSession& session, const RunSettings& next);

// The captured stages as this frame draws them, and the run's capture they were taken from.
struct FrameSnapshot {
    HistorySnapshot snap;
    std::shared_ptr<const CaptureObserver> from;
};

// The stage the panels show: the selected one, or else the latest (nullptr before any).
const StageRecord* shownRecord(const HistorySnapshot& snap, const ViewState& view);

// Once a frame. The logit lens is computed for the steps someone looks at: as the run goes while
// the Lens panel is shown, and on showing it, for the shown step from the outputs its blocks still
// hold. A new run starts a new snapshot and follows the engine.
void refreshSnapshot(EngineSession& session, ViewState& view, FrameSnapshot& frame);

}  // namespace llama::viewer
