#pragma once
// Runs a loaded EngineSession to the end and returns what it captured: the viewer tests' common
// step after loading a model.
#include <catch2/catch.hpp>

#include <chrono>

#include "state/engine_session.h"

namespace llama::viewer {

inline HistorySnapshot runToEnd(EngineSession& session, const RunSettings& settings) {
    using namespace std::chrono_literals;
    session.start(settings, StepController::Mode::Continue, false);
    REQUIRE(session.waitUntilSettled(120s));
    INFO(session.status().message);
    REQUIRE(session.status().state == SessionState::Finished);
    HistorySnapshot snap;
    session.capture()->snapshot(snap);
    return snap;
}

}  // namespace llama::viewer
