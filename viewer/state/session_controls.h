#pragma once
// What the viewer's controls do to the engine session, decided without a window: an action (a
// button, a shortcut, a script line) in the session's state becomes one session call; once a
// frame the captured stages are taken into a snapshot and the shown stage is chosen.
#include <memory>

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
