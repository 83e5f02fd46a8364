// The script commands that change state without a window (state/script_state_commands.h): the
// what-if switches, the sampling settings and what the panels look at, each as the command line
// reads it, and a what-if set by a script is the experiment the next run is.
#include <catch2/catch.hpp>

#include <chrono>

#include "session_run.h"
#include "state/engine_session.h"
#include "state/script.h"
#include "state/script_state_commands.h"

using namespace llama;
using namespace llama::viewer;
using namespace std::chrono_literals;

namespace {
// Applies every command of `text` (all of them state commands) to `settings` and `view`.
void apply(const std::string& text, RunSettings& settings, ViewState& view) {
    for (const ScriptCommand& c : parseScript(text, "test.script")) {
        REQUIRE(isStateCommand(c.name));
        applyStateCommand(c, settings, view);
    }
}
RunSettings applied(const std::string& text) {
    RunSettings settings;
    ViewState view;
    apply(text, settings, view);
    return settings;
}
}  // namespace

TEST_CASE("script what-if commands: each switch on, and off again") {
    RunSettings s = applied("no-mask on\nno-kv-cache on\nno-rope on\nrope-theta 10000\nablate-head 2:3\nablate-head 1:1\nskip-layer 2\nskip-layer 4\n"
                            "compute-dtype f32\n");
    CHECK(s.whatIf.noMask);
    CHECK(s.whatIf.noKvCache);
    CHECK(s.whatIf.noRope);
    REQUIRE(s.whatIf.ropeTheta);
    CHECK(*s.whatIf.ropeTheta == 10000.0);
    // 1-based on the command line and in scripts, 0-based inside
    CHECK(s.whatIf.ablateHeads == std::set<std::pair<int, int>>{{1, 2}, {0, 0}});
    CHECK(s.whatIf.skipLayers == std::set<int>{1, 3});
    CHECK(s.whatIf.computeDType == DType::F32);
    CHECK(s.whatIf.describe().find("--compute-dtype f32") != std::string::npos);

    ViewState view;
    apply("no-mask off\nno-kv-cache off\nno-rope off\nrope-theta off\nablate-head off\nskip-layer off\ncompute-dtype off\n", s, view);
    CHECK_FALSE(s.whatIf.any());
}

TEST_CASE("script what-if commands: a bad value says what was expected and changes nothing") {
    struct Case {
        std::string script, message;
    };
    for (const Case& c : {Case{"no-mask yes", "expected on or off, got 'yes'"},
                          Case{"compute-dtype f16", "f16"},
                          Case{"\nrope-theta nan", "nan"},
                          Case{"rope-theta -1", "-1"},
                          Case{"ablate-head 0:0", "0:0"},
                          Case{"ablate-head 4294967297:1", "4294967297"},
                          Case{"skip-layer 0", "expected a layer from 1 upwards, got '0'"},
                          Case{"skip-layer 1x", "1x"}}) {
        INFO(c.script);
        RunSettings settings;
        ViewState view;
        try {
            apply(c.script, settings, view);
            FAIL("accepted");
        } catch (const std::invalid_argument& e) {
            CHECK_THAT(e.what(), Catch::Contains(c.message));
        }
        CHECK_FALSE(settings.whatIf.any());
    }
}

TEST_CASE("script sampling and view commands set what the viewer runs and shows") {
    RunSettings s;
    ViewState v;
    apply("mode chat\nsystem \"Be brief.\"\nprompt \"hello world\"\nmax-tokens 5\ntemperature 0.7\ntop-k 40\ntop-p 0.9\nmin-p 0.05\n"
          "seed 42\nrepeat-penalty 1.3\nrepeat-last-n 16\nfrequency-penalty 0.5\npresence-penalty 0.25\n"
          "layer 2\nhead 3\ncell 4 1\nscores masked\nselect 7\ntensor scores\nmap-layer 2\n",
          s, v);
    CHECK(s.mode == PromptMode::Chat);
    CHECK(s.system == "Be brief.");
    CHECK(s.prompt == "hello world");
    CHECK(s.maxTokens == 5);
    CHECK(s.sampling.temperature == 0.7f);
    CHECK(s.sampling.topK == 40);
    CHECK(s.sampling.topP == 0.9f);
    CHECK(s.sampling.minP == 0.05f);
    CHECK(s.sampling.seed == 42u);
    CHECK(s.sampling.repeatPenalty == 1.3f);
    CHECK(s.sampling.repeatLastN == 16);
    CHECK(s.sampling.frequencyPenalty == 0.5f);
    CHECK(s.sampling.presencePenalty == 0.25f);
    CHECK(v.attentionLayer == 1);  // 1-based in scripts
    CHECK(v.head == 2);
    REQUIRE(v.cell);
    CHECK((v.cell->row == 4 && v.cell->col == 1));
    CHECK(v.showMaskedScores);
    CHECK(v.selectedRecord == 7);
    CHECK(v.tensorName == "scores");
    CHECK(v.mapLayer == 1);
    apply("head all", s, v);
    CHECK(v.head == -1);
    CHECK_FALSE(v.cell);  // a new head forgets the cell
}

TEST_CASE("a what-if a script sets is the experiment the next run is") {
    EngineSession session;
    session.load({ModelSource{ModelSource::Kind::Synthetic, "tiny", 7}});
    REQUIRE(session.waitUntilSettled(60s));
    RunSettings settings;
    settings.prompt = "hello world";
    ViewState view;
    apply("max-tokens 1\nno-mask on\nskip-layer 2\n", settings, view);
    const HistorySnapshot snap = runToEnd(session, settings);
    CHECK(session.settings().whatIf.noMask);
    CHECK(session.settings().whatIf.skipLayers == std::set<int>{1});
    const StageRecord* masked = findRecord(snap.records, 0, 0, StageId::ScoresMask);
    REQUIRE(masked);
    CHECK(masked->message == "Skipping addition scores + mask");
}

TEST_CASE("every script command is run by the state or by the app, and breakpoints are read here") {
    // The app's runner checks the other half (app/script_runner.cpp); here the state's half is
    // a subset of what the parser accepts.
    int state = 0;
    for (const ScriptCommandInfo& info : scriptCommands()) state += isStateCommand(info.name);
    CHECK(state == 28);  // compute-dtype and record-trace among them
    CHECK_FALSE(isStateCommand("step-to"));
    const ScriptCommand c = parseScript("step-to scores_softmax 2 1", "t").front();
    const Breakpoint b = breakpointArgs(c);
    CHECK(b.stage == StageId::ScoresSoftmax);
    CHECK(b.layer == 1);
    CHECK(b.step == 1);
    CHECK(breakpointMatches(b, HeldAt{StageId::ScoresSoftmax, 1, 1}));
    CHECK_FALSE(breakpointMatches(b, HeldAt{StageId::ScoresSoftmax, 1, 0}));
    CHECK_THROWS_WITH(breakpointArgs(parseScript("step-to nowhere", "t").front()), Catch::StartsWith("no stage 'nowhere'"));
}
