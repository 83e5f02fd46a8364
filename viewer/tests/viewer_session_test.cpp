// The engine on its worker thread as the viewer drives it, on the synthetic "tiny" model:
// holding, stepping, breakpoints, capture and its memory policy, and stopping while held.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>

#include "state/attention_explain.h"
#include "state/engine_session.h"
#include "state/view_state.h"
#include "model/synthetic.h"
#include "trace/trace_recorder.h"

using namespace llama;
using namespace llama::viewer;
using namespace std::chrono_literals;

namespace {
RunSettings tinySettings() {
    RunSettings s;
    s.prompt = "hello world";
    s.maxTokens = 3;
    return s;
}

void loadTiny(EngineSession& session) {
    session.load({{ModelSource::Kind::Synthetic, "tiny", 7}});
    REQUIRE(session.waitUntilSettled(60s));
    REQUIRE(session.status().state == SessionState::Ready);
}

// Records a run of the tiny model the way `llama-walkthrough --trace` does.
void recordTinyTrace(const std::string& path, const SamplingSettings& sampling) {
    Model model = makeSyntheticModel("tiny", 7, false);
    LlamaTransformer transformer(model);
    InferenceContext ctx(model.args);
    TraceRunInfo info{"hello world", 2, sampling, false};
    TraceRecorder recorder(path, model, info, TraceOptions{});
    ctx.addObserver(&recorder);
    Sampler sampler(info.sampling);
    Generator generator(transformer, *model.tokenizer);
    recorder.finish(generator.generate(ctx, info.prompt, info.maxTokens, sampler, {}));
}

HistorySnapshot snapshotOf(const EngineSession& s) {
    HistorySnapshot snap;
    s.capture()->snapshot(snap);
    return snap;
}
}  // namespace

TEST_CASE("a run starts held at stage 1 and steps one stage at a time") {
    EngineSession session;
    loadTiny(session);
    session.start(tinySettings(), StepController::Mode::Stage, true);
    REQUIRE(session.waitUntilSettled(30s));
    SessionStatus s = session.status();
    REQUIRE(s.state == SessionState::Paused);
    CHECK(s.held->stage == StageId::Tokenize);
    session.step();
    REQUIRE(session.waitUntilSettled(30s));
    CHECK(session.status().held->stage == StageId::TokensTensor);
    CHECK(snapshotOf(session).records.size() == 2);
}

TEST_CASE("a breakpoint holds the engine where the attention panel needs it, and the capture explains a cell") {
    EngineSession session;
    loadTiny(session);
    session.setBreakpoints({{StageId::ScoresSoftmax, 1, std::nullopt}});
    session.start(tinySettings(), StepController::Mode::Continue, true);
    REQUIRE(session.waitUntilSettled(30s));
    SessionStatus s = session.status();
    REQUIRE(s.state == SessionState::Paused);
    CHECK(s.held->stage == StageId::ScoresSoftmax);
    CHECK(s.held->layer == 1);

    HistorySnapshot snap = snapshotOf(session);
    const StageRecord* scores = findRecord(snap.records, 0, 1, StageId::ScoresSoftmax);
    const StageRecord* tr = findRecord(snap.records, 0, 1, StageId::Transposes);
    const StageRecord* mask = findRecord(snap.records, 0, -1, StageId::Mask);
    REQUIRE(scores);
    REQUIRE(tr);
    REQUIRE(mask);
    const Tensor& probs = *scores->find("scores")->data;
    const int seqLen = int(probs.dim(1));
    REQUIRE(seqLen >= 2);
    CHECK(scores->seqLen == seqLen);
    for (int col = 0; col < seqLen; ++col) {
        CellExplanation e = explainAttentionCell(*tr->find("xq")->data, *tr->find("keys")->data, &*mask->find("mask")->data, 1, seqLen - 1, col);
        // The engine rounds to bfloat16 between steps: agreement to about 1%.
        CHECK(e.probability == Approx(probs.floatAt((int64_t(1) * seqLen + seqLen - 1) * seqLen + col)).margin(0.01));
    }
    CHECK(snap.positionTokens.size() == size_t(seqLen));
}

TEST_CASE("a whole run records the top tokens and the sampled one per step, and trims older steps") {
    EngineSession session;
    loadTiny(session);
    CHECK_FALSE(session.status().runSeconds);  // no run yet (script fact run-seconds: none)
    const auto started = std::chrono::steady_clock::now();
    session.start(tinySettings(), StepController::Mode::Continue, false);
    REQUIRE(session.waitUntilSettled(60s));
    REQUIRE(session.status().state == SessionState::Finished);
    // How long the run took, from start to its end (scripts/bench-viewer-run.sh reads it).
    REQUIRE(session.status().runSeconds);
    CHECK(*session.status().runSeconds > 0);
    CHECK(*session.status().runSeconds <= std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    HistorySnapshot snap = snapshotOf(session);
    REQUIRE(snap.steps.size() >= 2);
    for (const auto& st : snap.steps) {
        REQUIRE(!st.top.empty());
        CHECK(st.sampled == st.top[0].id);  // greedy
        CHECK(st.sampledProbability == st.top[0].probability);
    }
    // The prefill's logits are [seqLen, VocabSize] F32; in an older step only small tensors stay.
    const StageRecord* logits = findRecord(snap.records, 0, -1, StageId::Logits);
    REQUIRE(logits);
    const CapturedTensor* t = logits->find("logits");
    CHECK(t->shape.at(1) == 768);
    CHECK(t->stats.max >= t->stats.min);
    CHECK(t->data.has_value() == (shapeNumel(t->shape) * 4 < int64_t(MemoryPolicy{}.keepOldTensorsBelow)));
}

TEST_CASE("stop while held ends the run without hanging, and a new run can start") {
    EngineSession session;
    loadTiny(session);
    session.start(tinySettings(), StepController::Mode::Stage, true);
    REQUIRE(session.waitUntilSettled(30s));
    REQUIRE(session.status().state == SessionState::Paused);
    auto t0 = std::chrono::steady_clock::now();
    session.stop();
    CHECK(std::chrono::steady_clock::now() - t0 < 5s);
    CHECK(session.status().state == SessionState::Finished);
    CHECK(session.status().message.find("stopped") != std::string::npos);

    session.restart();
    REQUIRE(session.waitUntilSettled(30s));
    CHECK(session.status().held->stage == StageId::Tokenize);
    // ~EngineSession stops the held run too.
}

TEST_CASE("next token holds where the token's logits and logit lens exist, then at the next step's") {
    EngineSession session;
    loadTiny(session);
    session.start(tinySettings(), StepController::Mode::Stage, true);
    REQUIRE(session.waitUntilSettled(30s));
    for (int step = 0; step < 2; ++step) {
        session.nextToken();
        REQUIRE(session.waitUntilSettled(30s));
        SessionStatus s = session.status();
        REQUIRE(s.state == SessionState::Paused);
        CHECK(s.held->stage == StageId::Logits);
        CHECK(s.held->step == step);
        // The lens panel reads one record per layer at stage 18; all of them are there.
        HistorySnapshot snap = snapshotOf(session);
        for (int layer = 0; layer < 2; ++layer) {
            const StageRecord* r = findRecord(snap.records, step, layer, StageId::FfnResidual);
            REQUIRE(r);
            CHECK(!r->lens.empty());
        }
    }
}

TEST_CASE("the logit lens is computed only for the steps someone looks at") {
    EngineSession session;
    loadTiny(session);
    session.wantLens(false);  // the Lens panel hidden
    session.start(tinySettings(), StepController::Mode::Continue, false);
    REQUIRE(session.waitUntilSettled(30s));
    REQUIRE(session.status().state == SessionState::Finished);
    auto lensOf = [&](int step, int layer) {
        const StageRecord* r = findRecord(snapshotOf(session).records, step, layer, StageId::FfnResidual);
        REQUIRE(r);
        return r->lens;
    };
    CHECK(lensOf(0, 0).empty());
    CHECK(lensOf(1, 1).empty());
    // Shown at step 1: that step's lens, from the blocks' outputs the run still holds, and the
    // same as a run that computed it as it went.
    CHECK(session.computeLens(1));
    CHECK_FALSE(session.computeLens(1));  // nothing left to compute
    const auto onRequest = lensOf(1, 1);
    CHECK(lensOf(0, 0).empty());
    session.wantLens(true);
    session.start(tinySettings(), StepController::Mode::Continue, false);
    REQUIRE(session.waitUntilSettled(30s));
    const auto asItWent = lensOf(1, 1);
    REQUIRE(onRequest.size() == asItWent.size());
    REQUIRE(!asItWent.empty());
    for (size_t i = 0; i < asItWent.size(); ++i) {
        REQUIRE(onRequest[i].size() == asItWent[i].size());
        for (size_t k = 0; k < asItWent[i].size(); ++k) {
            CHECK(onRequest[i][k].id == asItWent[i][k].id);
            CHECK(onRequest[i][k].probability == asItWent[i][k].probability);
        }
    }
}

TEST_CASE("stepping after a finished run keeps it and says how to restart") {
    EngineSession session;
    loadTiny(session);
    session.start(tinySettings(), StepController::Mode::Continue, false);
    REQUIRE(session.waitUntilSettled(30s));
    REQUIRE(session.status().state == SessionState::Finished);
    auto capture = session.capture();
    const size_t records = snapshotOf(session).records.size();
    session.step();
    session.nextLayer();
    session.nextToken();
    session.continueRun();
    SessionStatus s = session.status();
    CHECK(s.state == SessionState::Finished);
    CHECK(s.message.rfind(kRunFinishedNotice, 0) == 0);
    CHECK(s.message.find("max tokens") != std::string::npos);  // and still how the run ended
    CHECK(session.capture() == capture);
    CHECK(snapshotOf(session).records.size() == records);
    CHECK(actionForKey({Key::R, true}) == Action::Restart);  // what the notice names
    session.restart();
    REQUIRE(session.waitUntilSettled(30s));
    CHECK(session.status().held->stage == StageId::Tokenize);
}

TEST_CASE("a recorded trace replays through the same controls: held, stepped, with its scores and top tokens") {
    const std::string path = (std::filesystem::temp_directory_path() / "viewer_test_tiny.trace").string();
    recordTinyTrace(path, {});
    EngineSession session;
    ViewerSource replay;
    replay.trace = path;
    session.load(replay);
    REQUIRE(session.waitUntilSettled(30s));
    REQUIRE(session.status().state == SessionState::Ready);
    CHECK(session.isReplay());
    session.setBreakpoints({{StageId::ScoresSoftmax, 1, std::nullopt}});
    session.start(RunSettings{}, StepController::Mode::Continue, true);
    REQUIRE(session.waitUntilSettled(30s));
    REQUIRE(session.status().state == SessionState::Paused);
    CHECK(session.status().held->layer == 1);
    CHECK(session.settings().prompt == "hello world");  // the recorded prompt, not the prompt box's

    HistorySnapshot snap = snapshotOf(session);
    const StageRecord* scores = findRecord(snap.records, 0, 1, StageId::ScoresSoftmax);
    REQUIRE(scores);
    const CapturedTensor* t = scores->find("scores");
    REQUIRE(t->data);
    CHECK(t->dtype == DType::BF16);  // as the engine computed it, though the trace stores F32 values
    CHECK(t->data->floatAt(0) == Approx(1.0f));  // the first token attends only to itself
    CHECK(!snap.positionTokens.empty());

    session.setBreakpoints({});
    session.continueRun();
    REQUIRE(session.waitUntilSettled(30s));
    CHECK(session.status().state == SessionState::Finished);
    snap = snapshotOf(session);
    REQUIRE(!snap.steps.empty());
    CHECK(!snap.steps[0].top.empty());
    CHECK(snap.steps[0].sampled == snap.steps[0].top[0].id);
}

TEST_CASE("run to a stage holds there, at a breakpoint on the way first, and the learner's breakpoints stay theirs") {
    EngineSession session;
    loadTiny(session);
    session.setBreakpoints({{StageId::ScoresSoftmax, 1, std::nullopt}});
    session.start(tinySettings(), StepController::Mode::Stage, true);
    REQUIRE(session.waitUntilSettled(30s));
    REQUIRE(session.status().held->stage == StageId::Tokenize);

    // Layer 1 of the first token's step, on the way to the next step's layer 0 (the Batch
    // panel's "ubatch >" to a ubatch the replay has not shown yet).
    session.runTo(Breakpoint{StageId::FfnResidual, 0, 1});
    REQUIRE(session.waitUntilSettled(30s));
    SessionStatus s = session.status();
    REQUIRE(s.state == SessionState::Paused);
    CHECK(s.held->stage == StageId::ScoresSoftmax);
    CHECK(s.held->layer == 1);
    CHECK(s.held->step == 0);
    session.continueRun();  // the target still stands
    REQUIRE(session.waitUntilSettled(30s));
    s = session.status();
    REQUIRE(s.state == SessionState::Paused);
    CHECK(s.held->stage == StageId::FfnResidual);
    CHECK(s.held->layer == 0);
    CHECK(s.held->step == 1);
    CHECK(session.breakpoints().size() == 1);

    // From here the learner's breakpoint holds again.
    session.continueRun();
    REQUIRE(session.waitUntilSettled(30s));
    s = session.status();
    REQUIRE(s.state == SessionState::Paused);
    CHECK(s.held->stage == StageId::ScoresSoftmax);
    CHECK(s.held->step == 1);
    session.setBreakpoints({{StageId::FfnResidual, std::nullopt, std::nullopt}});
    session.runFree();
    REQUIRE(session.waitUntilSettled(30s));
    CHECK(session.status().state == SessionState::Finished);

    // Nothing to continue once the run has finished.
    session.runTo(Breakpoint{StageId::FfnResidual, 0, 2});
    CHECK(session.status().state == SessionState::Finished);
}

TEST_CASE("a breakpoint on a layer the model does not have is refused") {
    EngineSession session;
    loadTiny(session);
    // The tiny preset has 2 layers: layer index 998 is layer 999.
    REQUIRE_THROWS_WITH(session.setBreakpoints({Breakpoint{StageId::AttentionNorm, 998, std::nullopt}}),
                        Catch::Contains("no layer 999: this model has layers 1 to 2"));
    REQUIRE_NOTHROW(session.setBreakpoints({Breakpoint{StageId::AttentionNorm, 1, std::nullopt}}));
}

TEST_CASE("with repetition penalties, each step has the top tokens after them too, live and replayed") {
    const SamplingSettings sampling{.repeatPenalty = 2.0f, .repeatLastN = -1, .presencePenalty = 1.0f};
    auto check = [](const HistorySnapshot& snap) {
        REQUIRE(!snap.steps.empty());
        for (const auto& st : snap.steps) {
            if (st.sampled < 0) continue;
            REQUIRE(st.topPenalized.size() == st.top.size());
            CHECK(st.sampled == st.topPenalized[0].id);  // greedy, after the penalties
            CHECK(st.sampledProbability == st.topPenalized[0].probability);
        }
    };
    EngineSession session;
    loadTiny(session);
    RunSettings settings = tinySettings();
    settings.sampling = sampling;
    session.start(settings, StepController::Mode::Continue, false);
    REQUIRE(session.waitUntilSettled(60s));
    REQUIRE(session.status().state == SessionState::Finished);
    check(snapshotOf(session));

    const std::string path = (std::filesystem::temp_directory_path() / "viewer_test_tiny_penalties.trace").string();
    recordTinyTrace(path, sampling);
    EngineSession replaying;
    ViewerSource replay;
    replay.trace = path;
    replaying.load(replay);
    REQUIRE(replaying.waitUntilSettled(30s));
    replaying.start(RunSettings{}, StepController::Mode::Continue, false);
    REQUIRE(replaying.waitUntilSettled(30s));
    REQUIRE(replaying.status().state == SessionState::Finished);
    check(snapshotOf(replaying));
    std::filesystem::remove(path);
}

TEST_CASE("without penalties no step has penalized top tokens") {
    EngineSession session;
    loadTiny(session);
    session.start(tinySettings(), StepController::Mode::Continue, false);
    REQUIRE(session.waitUntilSettled(60s));
    for (const auto& st : snapshotOf(session).steps) CHECK(st.topPenalized.empty());
}
