#include "state/session_controls.h"

#include <optional>

namespace llama::viewer {

SessionCall sessionCallFor(Action action, SessionState state) {
    if (state == SessionState::Loading) return SessionCall::None;
    const bool active = state == SessionState::Running || state == SessionState::Paused;
    const bool finished = state == SessionState::Finished;
    switch (action) {
        case Action::Run: return active ? SessionCall::RunFree : SessionCall::StartFree;
        case Action::Continue: return active || finished ? SessionCall::ContinueRun : SessionCall::StartToBreakpoint;
        case Action::Pause: return SessionCall::Pause;
        case Action::Step:
        case Action::StepLayer:
        case Action::StepToken:
            if (!active && !finished) return SessionCall::StartHeld;
            return action == Action::Step ? SessionCall::Step : action == Action::StepLayer ? SessionCall::NextLayer : SessionCall::NextToken;
        case Action::Stop: return SessionCall::Stop;
        case Action::Restart: return SessionCall::StartHeld;
        case Action::ToggleBreakpoint: return SessionCall::ToggleBreakpoint;
        case Action::ToggleLayerBreakpoint: return SessionCall::ToggleLayerBreakpoint;
    }
    return SessionCall::None;
}

void performAction(Action action, EngineSession& session, const RunSettings& settings, ViewState& view, const StageRecord* shown) {
    const SessionCall call = sessionCallFor(action, session.status().state);
    switch (call) {
        case SessionCall::None: return;
        case SessionCall::StartFree: session.start(settings, StepController::Mode::Continue, false); break;
        case SessionCall::StartToBreakpoint: session.start(settings, StepController::Mode::Continue, true); break;
        case SessionCall::StartHeld: session.start(settings, StepController::Mode::Stage, true); break;
        case SessionCall::RunFree: session.runFree(); break;
        case SessionCall::ContinueRun: session.continueRun(); break;
        case SessionCall::Step: session.step(); break;
        case SessionCall::NextLayer: session.nextLayer(); break;
        case SessionCall::NextToken: session.nextToken(); break;
        case SessionCall::Pause: session.pause(); break;
        case SessionCall::Stop: session.stop(); break;
        case SessionCall::ToggleBreakpoint:
        case SessionCall::ToggleLayerBreakpoint:
            if (shown) {
                auto bps = session.breakpoints();
                std::optional<int> layer;
                if (call == SessionCall::ToggleLayerBreakpoint && shown->layer >= 0) layer = shown->layer;
                toggleBreakpoint(bps, shown->stage, layer);
                session.setBreakpoints(bps);
            }
            break;
    }
    // Stepping (even the step that starts a run) means following the engine again.
    if (action == Action::Step || action == Action::StepLayer || action == Action::StepToken) view.selectedRecord = -1;
}

const StageRecord* shownRecord(const HistorySnapshot& snap, const ViewState& view) {
    if (snap.records.empty()) return nullptr;
    if (view.selectedRecord >= 0 && view.selectedRecord < int(snap.records.size())) return snap.records[size_t(view.selectedRecord)].get();
    return snap.records.back().get();
}

void refreshSnapshot(EngineSession& session, ViewState& view, FrameSnapshot& frame) {
    const bool lensShown = view.panel == Panel::Lens;
    session.wantLens(lensShown);
    if (const StageRecord* shown = shownRecord(frame.snap, view); lensShown && shown) session.computeLens(shown->step);
    auto capture = session.capture();
    if (capture != frame.from) frame.snap = {}, frame.from = capture, view.selectedRecord = -1;  // a new run
    if (capture) capture->snapshot(frame.snap);
}

}  // namespace llama::viewer
