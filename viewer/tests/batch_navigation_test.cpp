// The Batch panel's "< ubatch" and "ubatch >" (state/batch_view.h): a ubatch the replay has shown
// is selected, one it has not reached is run to (EngineSession::runTo), past the last is nothing.
#include <catch2/catch.hpp>

#include "state/batch_view.h"

using namespace llama;
using namespace llama::viewer;

TEST_CASE("ubatch navigation selects a shown ubatch and runs the replay to one not shown yet") {
    // Stages 0-1: ubatch 0 (step 0); stages 2-4: ubatch 1 (step 1); stage 5: ubatch 2 (step 2, layer-less).
    TraceRun run;
    run.run.batch = TraceBatchInfo{};
    auto stage = [](StageId id, int layer, int step, bool ubatch) {
        TracedStage s;
        s.stage = id;
        s.layer = layer;
        s.step = step;
        if (ubatch) s.ubatch = TracedUBatch{0, 1, 1, 1, {}};
        return s;
    };
    run.stages = {stage(StageId::UBatchTokens, -1, 0, true), stage(StageId::Mask, -1, 0, false), stage(StageId::UBatchTokens, -1, 1, true),
                  stage(StageId::AttentionNorm, 0, 1, false), stage(StageId::Mask, -1, 1, false), stage(StageId::UBatchTokens, -1, 2, true)};

    // Shown up to stage 3: ubatch 1 (stage 2) is selected.
    UbatchDestination d = ubatchDestination(run, 1, 4);
    CHECK(d.stage == std::optional<size_t>(2));
    CHECK(!d.runTo);
    // ubatch 2 (stage 5) is not shown yet: the replay runs to its stage, layer and step.
    d = ubatchDestination(run, 2, 4);
    CHECK(!d.stage);
    REQUIRE(d.runTo);
    CHECK(d.runTo->stage == StageId::UBatchTokens);
    CHECK(d.runTo->layer == std::optional<int>(-1));
    CHECK(d.runTo->step == std::optional<int>(2));
    // The last stage shown is the boundary: stage 5 of 6 shown is selected.
    CHECK(ubatchDestination(run, 2, 6).stage == std::optional<size_t>(5));
    // Past the last ubatch, and before the first: nowhere.
    d = ubatchDestination(run, 3, 6);
    CHECK((!d.stage && !d.runTo));
    d = ubatchDestination(run, -1, 6);
    CHECK((!d.stage && !d.runTo));
}
