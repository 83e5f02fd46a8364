// What the viewer adds for experiments, on the synthetic "tiny" model: the logit lens captured
// live and replayed from a trace, a what-if run shown as one, two traces compared, and the
// logits panel's what-if temperature.
#include <catch2/catch.hpp>

#include <limits>

#include <chrono>
#include <cmath>
#include <filesystem>

#include "generate/logit_lens.h"
#include "state/engine_session.h"
#include "session_run.h"
#include "state/lens_grid.h"
#include "state/temperature_sweep.h"
#include "trace/trace_recorder.h"

using namespace llama;
using namespace llama::viewer;
using namespace std::chrono_literals;

namespace {
const ModelSource kTiny{ModelSource::Kind::Synthetic, "tiny", 7};

// Loads the tiny model and runs "hello world" for `maxTokens` with `whatIf` (and the lens if `lens`).
HistorySnapshot runTiny(EngineSession& session, int maxTokens, const WhatIf& whatIf = {}, bool lens = true) {
    session.load({kTiny});
    REQUIRE(session.waitUntilSettled(60s));
    RunSettings settings;
    settings.prompt = "hello world";
    settings.maxTokens = maxTokens;
    settings.whatIf = whatIf;
    settings.lens = lens;
    return runToEnd(session, settings);
}

// Records a greedy run of the tiny model as `llama-walkthrough --trace` does, lens included.
std::string recordTrace(const std::string& name, const WhatIf& whatIf) {
    const std::string path = (std::filesystem::temp_directory_path() / ("viewer_experiment_" + name + ".trace")).string();
    Session s;
    s.load(kTiny);
    s.settings().prompt = "hello world";
    s.settings().maxTokens = 2;
    s.settings().whatIf = whatIf;
    const LogitLens lens(s.transformer());
    TraceRecorder recorder(path, *s.model(), TraceRunInfo{"hello world", 2, {}, false, whatIf}, TraceOptions{}, &lens);
    s.addObserver(&recorder);
    recorder.finish(s.run());
    return path;
}
}  // namespace

TEST_CASE("a live run captures the logit lens - its last layer is the sampled prediction") {
    EngineSession session;
    const HistorySnapshot snap = runTiny(session, 2);
    const LensGrid grid = lensGrid(snap.records, 0);
    REQUIRE(grid.layers == std::vector<int>{0, 1});
    CHECK(grid.positions == snap.steps[0].seqLen);
    const auto& last = grid.cells.back().back();
    REQUIRE_FALSE(last.empty());
    CHECK(last.front().id == snap.steps[0].sampled);  // greedy: the top token of the last layer
    CHECK(last.front().probability == Approx(snap.steps[0].top.front().probability));
    CHECK(lensGrid(snap.records, 5).empty());  // no such step
    CHECK_FALSE(session.settings().whatIf.any());
}

TEST_CASE("the live logit lens can be turned off") {
    EngineSession session;
    CHECK(lensGrid(runTiny(session, 1, {}, false).records, 0).empty());
}

TEST_CASE("a what-if run from the viewer is that experiment, and says so in its settings") {
    EngineSession session;
    const HistorySnapshot snap = runTiny(session, 1, WhatIf{.noMask = true});
    CHECK(session.settings().whatIf.noMask);
    const StageRecord* mask = findRecord(snap.records, 0, -1, StageId::Mask);
    REQUIRE(mask);
    CHECK(mask->tensors.empty());
    const StageRecord* masked = findRecord(snap.records, 0, 0, StageId::ScoresMask);
    REQUIRE(masked);
    CHECK(masked->message == "Skipping addition scores + mask");
}

TEST_CASE("two traces replay side by side: the comparison, the lens and the experiment come with them") {
    const std::string model = recordTrace("model", {}), noMask = recordTrace("nomask", WhatIf{.noMask = true});
    EngineSession session;
    ViewerSource source;
    source.trace = noMask;
    source.compare = model;
    session.load(source);
    REQUIRE(session.waitUntilSettled(60s));
    REQUIRE(session.status().state == SessionState::Ready);
    const auto cmp = session.comparison();
    REQUIRE(cmp);
    REQUIRE(cmp->diff.firstDivergence);
    const StageDifference& first = cmp->diff.stages[*cmp->diff.firstDivergence];
    CHECK(first.stage == StageId::Mask);
    CHECK(first.note == "mask only in B");

    const HistorySnapshot snap = runToEnd(session, RunSettings{});
    CHECK(session.settings().whatIf.noMask);  // the replayed trace's experiment, for the banner
    const StageRecord* mask = findRecord(snap.records, 0, -1, StageId::Mask);
    REQUIRE(mask);
    const StageDifference* pair = cmp->pairOf(mask->index);
    REQUIRE(pair);
    CHECK(pair->stage == StageId::Mask);
    CHECK(cmp->pairOf(-1) == nullptr);
    CHECK(lensGrid(snap.records, 0).layers.size() == 2);
    std::filesystem::remove(model);
    std::filesystem::remove(noMask);
}

TEST_CASE("the what-if temperature spreads or sharpens the same logits") {
    Tensor logits({4}, DType::F32);
    const float values[] = {2.0f, 1.0f, 0.0f, -1.0f};
    for (int i = 0; i < 4; ++i) logits.mutableData<float>()[i] = values[i];
    auto probability = [](const SweptTokens& s, int32_t id) {
        for (const auto& t : s.top)
            if (t.id == id) return t.probability;
        return -1.0f;
    };
    const SweptTokens one = tokensAtTemperature(&logits, {}, 1.0f, 4);
    CHECK(one.wholeVocabulary);
    const double z = std::exp(2.0) + std::exp(1.0) + 1 + std::exp(-1.0);
    CHECK(probability(one, 0) == Approx(std::exp(2.0) / z));
    const SweptTokens hot = tokensAtTemperature(&logits, {}, 3.0f, 4), cold = tokensAtTemperature(&logits, {}, 0.3f, 4);
    CHECK(probability(hot, 0) < probability(one, 0));
    CHECK(probability(cold, 0) > probability(one, 0));
    const SweptTokens greedy = tokensAtTemperature(&logits, {}, 0.0f, 2);
    REQUIRE(greedy.top.size() == 2);
    CHECK(greedy.top[0].id == 0);
    CHECK(greedy.top[0].probability == 1.0f);
    CHECK(greedy.top[1].probability == 0.0f);

    // A trace keeps only its top tokens' logits: renormalised over those, and said so.
    const std::vector<TokenProbability> recorded = {{1, 1.0f, 0.2f}, {0, 2.0f, 0.5f}};
    const SweptTokens fromTrace = tokensAtTemperature(nullptr, recorded, 1.0f, 4);
    CHECK_FALSE(fromTrace.wholeVocabulary);
    REQUIRE(fromTrace.top.size() == 2);
    CHECK(fromTrace.top[0].id == 0);
    CHECK(fromTrace.top[0].probability == Approx(std::exp(2.0) / (std::exp(2.0) + std::exp(1.0))));

    // A hostile trace's logits: NaN ranks last with no probability, +inf takes the softmax's
    // limit (the infinite ones share everything), and no probability is NaN.
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<TokenProbability> hostile = {{0, nan, 0}, {1, 1.0f, 0}, {2, inf, 0}, {3, nan, 0}, {4, inf, 0}, {5, -inf, 0}};
    const SweptTokens swept = tokensAtTemperature(nullptr, hostile, 1.0f, 6);
    REQUIRE(swept.top.size() == 6);
    CHECK(swept.top[0].id == 2);
    CHECK(swept.top[1].id == 4);
    CHECK(swept.top[2].id == 1);
    CHECK(swept.top[0].probability == 0.5f);
    CHECK(swept.top[1].probability == 0.5f);
    for (size_t i = 2; i < swept.top.size(); ++i) CHECK(swept.top[i].probability == 0.0f);
    const SweptTokens noNumbers = tokensAtTemperature(nullptr, {{0, nan, 0}, {1, -inf, 0}}, 2.0f, 2);
    for (const auto& t : noNumbers.top) CHECK(t.probability == 0.0f);
}
