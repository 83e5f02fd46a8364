// The viewer's run history keeps a long run's memory on a plateau: the current step whole, the
// older steps' small tensors within their own budget (the oldest dropped first), summaries always.
#include <catch2/catch.hpp>

#include "ml/ops.h"
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
