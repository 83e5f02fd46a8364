// What the viewer's controls do to the engine session (state/session_controls.h): each action
// in each session state becomes one call, and the shown stage follows the engine unless chosen.
#include <catch2/catch.hpp>

#include <chrono>

#include "state/session_controls.h"

using namespace llama;
using namespace llama::viewer;
using namespace std::chrono_literals;

TEST_CASE("session controls: an action in each state of the session becomes one call") {
    using S = SessionState;
    using C = SessionCall;
    // While the model loads, the keys do nothing.
    for (Action a : {Action::Run, Action::Continue, Action::Step, Action::Stop, Action::Restart}) CHECK(sessionCallFor(a, S::Loading) == C::None);
    // Before a run: the run starts, free, to the first breakpoint, or held at the first stage.
    CHECK(sessionCallFor(Action::Run, S::Ready) == C::StartFree);
    CHECK(sessionCallFor(Action::Continue, S::Ready) == C::StartToBreakpoint);
    for (Action a : {Action::Step, Action::StepLayer, Action::StepToken, Action::Restart}) CHECK(sessionCallFor(a, S::Ready) == C::StartHeld);
    // During one: the run goes on.
    for (S s : {S::Running, S::Paused}) {
        CHECK(sessionCallFor(Action::Run, s) == C::RunFree);
        CHECK(sessionCallFor(Action::Continue, s) == C::ContinueRun);
        CHECK(sessionCallFor(Action::Step, s) == C::Step);
        CHECK(sessionCallFor(Action::StepLayer, s) == C::NextLayer);
        CHECK(sessionCallFor(Action::StepToken, s) == C::NextToken);
        CHECK(sessionCallFor(Action::Restart, s) == C::StartHeld);
    }
    // After one: stepping keeps it on screen (the session says how to restart); Run starts anew.
    CHECK(sessionCallFor(Action::Step, S::Finished) == C::Step);
    CHECK(sessionCallFor(Action::Continue, S::Finished) == C::ContinueRun);
    CHECK(sessionCallFor(Action::Run, S::Finished) == C::StartFree);
    CHECK(sessionCallFor(Action::Pause, S::Running) == C::Pause);
    CHECK(sessionCallFor(Action::Stop, S::Paused) == C::Stop);
    CHECK(sessionCallFor(Action::ToggleLayerBreakpoint, S::Paused) == C::ToggleLayerBreakpoint);
}

TEST_CASE("session controls: stepping follows the engine, a chosen stage is shown, a breakpoint toggles at it") {
    EngineSession session;
    session.load({{ModelSource::Kind::Synthetic, "tiny", 7}});
    REQUIRE(session.waitUntilSettled(60s));
    RunSettings settings;
    settings.prompt = "hello world";
    settings.maxTokens = 2;
    ViewState view;
    FrameSnapshot frame;
    performAction(Action::Step, session, settings, view, nullptr);
    REQUIRE(session.waitUntilSettled(60s));
    REQUIRE(session.status().state == SessionState::Paused);
    performAction(Action::Step, session, settings, view, nullptr);
    REQUIRE(session.waitUntilSettled(60s));
    refreshSnapshot(session, view, frame);
    REQUIRE(frame.snap.records.size() == 2);
    CHECK(shownRecord(frame.snap, view) == frame.snap.records.back().get());
    view.selectedRecord = 0;
    const StageRecord* first = shownRecord(frame.snap, view);
    CHECK(first == frame.snap.records.front().get());
    performAction(Action::ToggleBreakpoint, session, settings, view, first);
    REQUIRE(session.breakpoints().size() == 1);
    CHECK(session.breakpoints().front().stage == first->stage);
    CHECK_FALSE(session.breakpoints().front().layer);
    performAction(Action::Step, session, settings, view, first);
    CHECK(view.selectedRecord == -1);
    REQUIRE(session.waitUntilSettled(60s));
    // A new run: a new snapshot, following the engine.
    view.selectedRecord = 0;
    performAction(Action::Restart, session, settings, view, nullptr);
    REQUIRE(session.waitUntilSettled(60s));
    refreshSnapshot(session, view, frame);
    CHECK(view.selectedRecord == -1);
    CHECK(frame.snap.records.size() == 1);
    session.stop();
}

TEST_CASE("session controls: a loaded trace is a replay, a model is not") {
    EngineSession session;
    CHECK_FALSE(session.isReplay());
    session.load({{ModelSource::Kind::Synthetic, "tiny", 7}});
    REQUIRE(session.waitUntilSettled(60s));
    CHECK_FALSE(session.isReplay());
}
