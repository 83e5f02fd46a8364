// What the viewer's controls do to the engine session (state/session_controls.h): each action
// in each session state becomes one call, and the shown stage follows the engine unless chosen.
#include <catch2/catch.hpp>

#include <chrono>

#include "model/steering.h"
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
    for (Action a : {Action::Step, Action::StepLayer, Action::Restart}) CHECK(sessionCallFor(a, S::Ready) == C::StartHeld);
    // Step token starts the run and holds where it holds in one: the first token's logits.
    CHECK(sessionCallFor(Action::StepToken, S::Ready) == C::StartToToken);
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

TEST_CASE("session controls: what the Run panel changed since the run started is named, for the banner") {
    RunSettings run;
    run.prompt = "In the beginning";
    RunSettings next = run;
    CHECK(settingsNotInRun(next, run).empty());
    CHECK(settingsNotInRunText({}, true).empty());
    next.prompt = "And God said";
    CHECK(settingsNotInRun(next, run) == std::vector<std::string>{"prompt"});
    // A control vector just loaded (even one equal to the run's) is not the run's.
    next.whatIf.steering = std::make_shared<const Steering>();
    next.sampling.seed = run.sampling.seed + 1;
    CHECK(settingsNotInRun(next, run) == std::vector<std::string>{"prompt", "sampling", "control vector"});
    CHECK(settingsNotInRunText({"prompt"}, true) ==
          "Not this run's: the edited prompt. Restart (Ctrl+R) runs with them; Run (F5) and the steps go on with this run.");
    CHECK(settingsNotInRunText({"prompt"}, false) == "Not this run's: the edited prompt. The next run (F5, Ctrl+R) uses them.");
    // A completion run has no system prompt (start() drops it): editing the hidden box changes nothing.
    next = run;
    next.system = "Be terse.";
    CHECK(settingsNotInRun(next, run).empty());
    next.whatIf.skipLayers.insert(2);
    CHECK(settingsNotInRun(next, run) == std::vector<std::string>{"what-if"});
}

TEST_CASE("session controls: Ctrl+R restarts while the prompt box has the keyboard, the plain keys type") {
    CHECK(actsWhileTyping({Key::R, true}));
    CHECK(actsWhileTyping({Key::F5}));
    CHECK(actsWhileTyping({Key::F10}));
    CHECK_FALSE(actsWhileTyping({Key::R}));
    CHECK_FALSE(actsWhileTyping({Key::Right, true}));  // a word to the right, in a text box
    CHECK_FALSE(actsWhileTyping({Key::Space}));
    CHECK_FALSE(actsWhileTyping({Key::Enter}));
}

TEST_CASE("session controls: before the first run the Output panel shows the prompt the run will use") {
    EngineSession session;  // nothing loaded yet, as while a big model loads
    RunSettings next;
    next.prompt = "And God said";  // -p
    CHECK(outputSettings(session, next).prompt == "And God said");
    CHECK(session.settings().prompt != "And God said");  // the session's own are the defaults until a run starts
}
