// The viewer's run history keeps a long run's memory on a plateau: the current step whole, the
// older steps' small tensors within their own budget (the oldest dropped first), summaries always.
#include <catch2/catch.hpp>

#include "ml/ops.h"
#include "state/capture_observer.h"
#include "state/panel_labels.h"
#include "state/run_history.h"

using namespace llama;
using namespace llama::viewer;

namespace {
// One decode step as the engine marks it: the loop's input token, then a block's [1, 512] BF16 row.
void addStep(RunHistory& h, int step) {
    const Tensor input = Tensor::fromInt32({step});
    const Tensor row = ml::Full({1, 512}, DType::BF16, float(step));
    h.add(StageEvent{.stage = StageId::SequenceLoop, .step = step, .startPos = step, .tensors = {{"inputTokens", &input}}});
    h.add(StageEvent{.stage = StageId::FfnResidual, .layer = 0, .step = step, .startPos = step, .tensors = {{"output", &row}}});
}
}  // namespace

TEST_CASE("run history: older steps keep small tensors within their budget, the oldest go first") {
    MemoryPolicy policy;
    policy.olderStepsBudget = 10 * 1024;  // about ten steps' rows (1 KB each) and token ids
    RunHistory h(policy);
    for (int step = 0; step < 200; ++step) addStep(h, step);

    // The older steps' budget plus the current step's row and id: never more.
    CHECK(h.tensorBytes() <= policy.olderStepsBudget + 1024 + 4);
    const StageRecord* oldest = findRecord(h.records(), 5, 0, StageId::FfnResidual);
    const StageRecord* recent = findRecord(h.records(), 198, 0, StageId::FfnResidual);
    REQUIRE(oldest);
    REQUIRE(recent);
    CHECK_FALSE(oldest->tensors[0].data.has_value());
    CHECK(oldest->tensors[0].stats.max == 5);  // the summary stays
    CHECK(findRecord(h.records(), 5, -1, StageId::SequenceLoop)->tensors[0].data.has_value() == false);
    CHECK(oldest->tensors[0].shape == Shape{1, 512});
    CHECK(recent->tensors[0].data.has_value());
    CHECK(recent->tensors[0].stats.max == 198);
    CHECK(h.records().size() == 400);
}

TEST_CASE("run history: the budget for all tensor data holds within one large step") {
    MemoryPolicy policy;
    policy.budget = 4 * 1024;
    RunHistory h(policy);
    const Tensor row = ml::Full({1, 512}, DType::BF16, 1.0f);
    for (int layer = 0; layer < 20; ++layer) h.add(StageEvent{.stage = StageId::FfnResidual, .layer = layer, .tensors = {{"output", &row}}});
    CHECK(h.tensorBytes() <= policy.budget);
    CHECK(h.records().back()->tensors[0].data.has_value());
    CHECK_FALSE(h.records().front()->tensors[0].data.has_value());
}

namespace {
// A prefill's attention in `layers` layers: the transposes (xq, keys) and scores of `bytes` each.
void addPrefillAttention(RunHistory& h, int layers, int64_t rows) {
    const Tensor input = Tensor::fromInt32(std::vector<int32_t>(size_t(rows), 1));
    h.add(StageEvent{.stage = StageId::SequenceLoop, .step = 0, .startPos = 0, .tensors = {{"inputTokens", &input}}});
    const Tensor scores = ml::Full({8, rows, rows}, DType::F32, 0.5f);
    const Tensor xq = ml::Full({8, rows, 32}, DType::F32, 1.0f), keys = ml::Full({8, 32, rows}, DType::F32, 1.0f);
    for (int layer = 0; layer < layers; ++layer) {
        h.add(StageEvent{.stage = StageId::Transposes, .layer = layer, .step = 0, .tensors = {{"xq", &xq}, {"keys", &keys}}});
        h.add(StageEvent{.stage = StageId::ScoresSoftmax, .layer = layer, .step = 0, .tensors = {{"scores", &scores}}});
        h.add(StageEvent{.stage = StageId::FfnResidual, .layer = layer, .step = 0, .tensors = {{"output", &scores}}});
    }
}
}  // namespace

TEST_CASE("run history: the prefill's attention stays after the run moves on, within its own budget") {
    // 8 layers of a 137-token prefill: 600 KB of scores and 280 KB of xq and keys a layer.
    MemoryPolicy policy;
    RunHistory h(policy);
    addPrefillAttention(h, 8, 137);
    for (int step = 1; step < 40; ++step) addStep(h, step);
    for (int layer = 0; layer < 8; ++layer) {
        const StageRecord* scores = findRecord(h.records(), 0, layer, StageId::ScoresSoftmax);
        const StageRecord* transposes = findRecord(h.records(), 0, layer, StageId::Transposes);
        REQUIRE(scores);
        REQUIRE(transposes);
        CHECK(scores->tensors[0].data.has_value());
        CHECK(transposes->tensors[1].data.has_value());  // keys: a cell's arithmetic
        // Other large prefill tensors still go.
        CHECK_FALSE(findRecord(h.records(), 0, layer, StageId::FfnResidual)->tensors[0].data.has_value());
    }
    CHECK(attentionMissing(findRecord(h.records(), 0, 0, StageId::ScoresMask), 0, 1, true).find("not reached") != std::string::npos);

    // A budget that holds three layers' attention: the first three stay, the rest are dropped and say so.
    MemoryPolicy small;
    small.prefillAttentionBudget = 3 * (8 * 137 * 137 * 4 + 2 * 8 * 137 * 32 * 4);
    RunHistory h2(small);
    addPrefillAttention(h2, 8, 137);
    addStep(h2, 1);
    for (int layer = 0; layer < 8; ++layer) {
        const StageRecord* scores = findRecord(h2.records(), 0, layer, StageId::ScoresSoftmax);
        CHECK(scores->tensors[0].data.has_value() == (layer < 3));
    }
    const std::string why = attentionMissing(findRecord(h2.records(), 0, 5, StageId::ScoresSoftmax), 5, 0, false);
    CHECK(why.find("layer 6 of step 0 passed stage 13") != std::string::npos);
    CHECK(why.find("dropped to bound memory") != std::string::npos);
}

TEST_CASE("capture: a snapshot kept up step by step is the history's, its older records trimmed or not") {
    MemoryPolicy policy;
    policy.olderStepsBudget = 10 * 1024;  // the older steps' rows are trimmed as the run goes on
    CaptureObserver capture(SamplingSettings{}, 5, policy);
    HistorySnapshot kept;  // taken again and again, as the live page's parts take it
    for (int step = 0; step < 40; ++step) {
        const Tensor input = Tensor::fromInt32({step});
        const Tensor row = ml::Full({1, 512}, DType::BF16, float(step));
        capture.onStage(StageEvent{.stage = StageId::SequenceLoop, .step = step, .startPos = step, .tensors = {{"inputTokens", &input}}});
        capture.snapshot(kept);  // the step opened, its top tokens not yet known
        capture.onStage(StageEvent{.stage = StageId::FfnResidual, .layer = 0, .step = step, .startPos = step, .tensors = {{"output", &row}}});
        capture.onReplayedStage(StageEvent{.stage = StageId::Logits, .step = step, .startPos = step}, SampleTops{.top = {{step, 1.0f, 0.5f}}}, {}, {});
        capture.snapshot(kept);
        HistorySnapshot fresh;
        capture.snapshot(fresh);
        INFO("step " << step);
        REQUIRE(kept.records == fresh.records);  // the same records, the trimmed copies included
        REQUIRE(kept.steps.size() == fresh.steps.size());
        for (size_t i = 0; i < kept.steps.size(); ++i) {
            REQUIRE(kept.steps[i].top.size() == 1);
            CHECK(kept.steps[i].top[0].id == fresh.steps[i].top[0].id);
        }
    }
    CHECK(kept.replacements > 0);  // records were trimmed (replaced) along the way
    CHECK_FALSE(kept.records.front()->tensors[0].data.has_value());
}
