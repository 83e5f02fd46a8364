// StepController driven from another thread, as the viewer drives it: a generation on the tiny
// synthetic model runs on its own thread and every pause is recorded.
#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "generate/generator.h"
#include "model/synthetic.h"
#include "stages/step_controller.h"

using namespace llama;

namespace {
struct Pause {
    StageId stage;
    int layer, step, startPos;
};

class DrivenRun {
public:
    explicit DrivenRun(StepController::Mode mode = StepController::Mode::Stage)
        : controller(mode), model_(makeSyntheticModel("tiny", 7, false)), transformer_(model_), ctx_(model_.args) {
        controller.setPauseListener([this](const StageEvent& e) {
            std::lock_guard lock(mutex_);
            pauses_.push_back({e.stage, e.layer, e.step, e.startPos});
            changed_.notify_all();
        });
        ctx_.addObserver(&controller);
    }
    ~DrivenRun() {
        if (thread_.joinable()) {
            controller.stop();
            thread_.join();
        }
    }

    // BOS + "hi" (2 bytes): a 3-token prefill.
    void start(int maxTokens) {
        thread_ = std::thread([this, maxTokens] {
            Sampler sampler(SamplingSettings{});
            GenerationResult r = Generator(transformer_, *model_.tokenizer).generate(ctx_, "<|begin_of_text|>hi", maxTokens, sampler, {});
            std::lock_guard lock(mutex_);
            result_ = r;
            changed_.notify_all();
        });
    }

    // The n-th pause (0-based), or nullopt when the run ended first. Never waits forever.
    std::optional<Pause> pause(size_t n) {
        std::unique_lock lock(mutex_);
        bool ok = changed_.wait_for(lock, std::chrono::seconds(20), [&] { return pauses_.size() > n || result_; });
        REQUIRE(ok);
        if (pauses_.size() > n) return pauses_[n];
        return std::nullopt;
    }

    GenerationResult finish() {
        thread_.join();
        return *result_;
    }

    StepController controller;

private:
    Model model_;
    LlamaTransformer transformer_;
    InferenceContext ctx_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<Pause> pauses_;
    std::optional<GenerationResult> result_;
    std::thread thread_;
};
}  // namespace

TEST_CASE("StepController: pauses at the first stage, then steps one stage at a time", "[trace][step]") {
    DrivenRun run;
    run.start(2);
    auto p = run.pause(0);
    REQUIRE(p);
    CHECK(p->stage == StageId::Tokenize);
    CHECK(p->layer == -1);
    run.controller.step();
    REQUIRE(run.pause(1)->stage == StageId::TokensTensor);
    run.controller.step();
    REQUIRE(run.pause(2)->stage == StageId::SequenceLoop);
    run.controller.continueRun();
    CHECK_FALSE(run.pause(3));
    GenerationResult r = run.finish();
    CHECK(r.stopReason == StopReason::MaxTokens);
    CHECK(r.generatedTokens.size() == 2);
}

TEST_CASE("StepController: next layer lands on the next layer's block stage", "[trace][step]") {
    DrivenRun run;
    run.start(1);
    REQUIRE(run.pause(0)->stage == StageId::Tokenize);
    run.controller.nextLayer();
    auto p = run.pause(1);
    CHECK(p->stage == StageId::BlockForward);
    CHECK(p->layer == 0);
    run.controller.step();
    CHECK(run.pause(2)->stage == StageId::AttentionNorm);
    run.controller.nextLayer();
    p = run.pause(3);
    CHECK(p->stage == StageId::BlockForward);
    CHECK(p->layer == 1);
    // After the last layer (tiny has 2), the next "layer" is the output stages.
    run.controller.nextLayer();
    p = run.pause(4);
    CHECK(p->stage == StageId::OutputNorm);
    CHECK(p->layer == -1);
    run.controller.continueRun();
    CHECK(run.finish().stopReason == StopReason::MaxTokens);
}

TEST_CASE("StepController: next token holds at each step's logits, before the token is sampled", "[trace][step]") {
    DrivenRun run;
    run.start(3);
    REQUIRE(run.pause(0)->stage == StageId::Tokenize);
    run.controller.nextToken();
    auto p = run.pause(1);
    CHECK(p->stage == StageId::Logits);
    CHECK(p->step == 0);
    run.controller.nextToken();  // held at step 0's logits: the next token is step 1's
    p = run.pause(2);
    CHECK(p->stage == StageId::Logits);
    CHECK(p->step == 1);
    run.controller.step();
    CHECK(run.pause(3)->stage == StageId::Sample);
    run.controller.nextToken();  // from the sampling stage, too
    p = run.pause(4);
    CHECK(p->stage == StageId::Logits);
    CHECK(p->step == 2);
    run.controller.continueRun();
    CHECK(run.finish().generatedTokens.size() == 3);
}

TEST_CASE("StepController: breakpoints by stage, layer and step", "[trace][step]") {
    DrivenRun run(StepController::Mode::Continue);
    run.controller.addBreakpoint({StageId::ScoresSoftmax, 1, 1});
    run.controller.addBreakpoint({StageId::CacheWrite, std::nullopt, std::nullopt});
    run.start(2);
    // cache_write of every layer and step; scores_softmax only in layer 1 (0-based) of step 1.
    const std::vector<std::tuple<StageId, int, int>> expected = {
        {StageId::CacheWrite, 0, 0}, {StageId::CacheWrite, 1, 0}, {StageId::CacheWrite, 0, 1},
        {StageId::CacheWrite, 1, 1}, {StageId::ScoresSoftmax, 1, 1}};
    for (size_t i = 0; i < expected.size(); ++i) {
        auto p = run.pause(i);
        REQUIRE(p);
        CHECK(std::tuple{p->stage, p->layer, p->step} == expected[i]);
        run.controller.continueRun();
    }
    CHECK_FALSE(run.pause(expected.size()));
    CHECK(run.finish().stopReason == StopReason::MaxTokens);
}

TEST_CASE("StepController: stop while paused ends the generation cleanly", "[trace][step]") {
    SECTION("at the very first stage") {
        DrivenRun run;
        run.start(4);
        REQUIRE(run.pause(0)->stage == StageId::Tokenize);
        run.controller.stop();
        GenerationResult r = run.finish();
        CHECK(r.stopReason == StopReason::Stopped);
        CHECK(r.generatedTokens.empty());
    }
    SECTION("inside a layer of a decode step") {
        DrivenRun run(StepController::Mode::Continue);
        run.controller.addBreakpoint({StageId::QKV, 1, 2});
        run.start(4);
        auto p = run.pause(0);
        REQUIRE(p);
        CHECK(p->step == 2);
        run.controller.stop();
        GenerationResult r = run.finish();
        CHECK(r.stopReason == StopReason::Stopped);
        CHECK(r.generatedTokens.size() == 2);
    }
}
