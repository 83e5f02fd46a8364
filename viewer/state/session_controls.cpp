#include "state/session_controls.h"

#include <optional>
#include <tuple>

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
            if (!active && !finished) return action == Action::StepToken ? SessionCall::StartToToken : SessionCall::StartHeld;
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
        case SessionCall::StartToToken: session.start(settings, StepController::Mode::Token, true); break;
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

std::vector<std::string> settingsNotInRun(const RunSettings& next, const RunSettings& run) {
    std::vector<std::string> changed;
    auto note = [&](bool differs, const char* what) {
        if (differs) changed.push_back(what);
    };
    const SamplingSettings &a = next.sampling, &b = run.sampling;
    note(next.mode != run.mode, "mode");
    // A completion run drops the system prompt (EngineSession::start): only chat mode's counts.
    note(next.mode == PromptMode::Chat && run.mode == PromptMode::Chat && next.system != run.system, "system prompt");
    note(next.prompt != run.prompt, "prompt");
    note(std::tie(a.temperature, a.topK, a.topP, a.minP, a.seed, a.repeatPenalty, a.repeatLastN, a.frequencyPenalty, a.presencePenalty) !=
             std::tie(b.temperature, b.topK, b.topP, b.minP, b.seed, b.repeatPenalty, b.repeatLastN, b.frequencyPenalty, b.presencePenalty),
         "sampling");
    note(next.maxTokens != run.maxTokens, "max tokens");
    // A control vector loaded again is another one, even from the same file.
    note(next.whatIf.steering != run.whatIf.steering, "control vector");
    WhatIf withoutSteering = next.whatIf, runWithout = run.whatIf;
    withoutSteering.steering.reset(), runWithout.steering.reset();
    note(withoutSteering.describe() != runWithout.describe(), "what-if");
    note(next.grammar != run.grammar, "grammar");
    return changed;
}

std::string settingsNotInRunText(const std::vector<std::string>& changed, bool going) {
    if (changed.empty()) return "";
    std::string list;
    for (const std::string& c : changed) list += (list.empty() ? "" : ", ") + c;
    return "Not this run's: the edited " + list +
           (going ? ". Restart (Ctrl+R) runs with them; Run (F5) and the steps go on with this run." : ". The next run (F5, Ctrl+R) uses them.");
}

std::string saveTraceUnavailable(SessionState state, bool replay, bool recorded, bool runRecords) {
    if (recorded) return "";
    if (replay) return "a replayed trace is a file already";
    constexpr const char* tick = "tick \"record a trace\" (Run panel, Prompt and sampling)";
    switch (state) {
        case SessionState::Running:
        case SessionState::Paused:
            return runRecords ? "the run's trace is complete once the run finished (F5 runs it to the end)"
                              : std::string("this run is not recording: ") + tick + ", then restart (Ctrl+R)";
        case SessionState::Finished:
            return runRecords ? "this run's recording failed: the temporary folder could not be written" : std::string("this run was not recorded: ") + tick + ", then run again";
        default: return std::string("no live run yet: ") + tick + ", then run";
    }
}

RunSettings outputSettings(const EngineSession& session, const RunSettings& next) {
    return session.capture() || session.isReplay() ? session.settings() : next;
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
