// The Compare panel's grid (state/trace_comparison.h): a layer one run skipped is drawn as only
// in the other run (magenta, as the legend says), not left blank.
#include <catch2/catch.hpp>

#include "state/trace_comparison.h"

using namespace llama;
using namespace llama::viewer;

namespace {
TracedStage stage(StageId id, int layer, int step) {
    TracedStage s;
    s.stage = id, s.layer = layer, s.step = step;
    return s;
}

// Three layers' attention norm and FFN output at step 0; `skip` leaves one layer out.
std::shared_ptr<TraceRun> run(int skip) {
    auto r = std::make_shared<TraceRun>();
    r->args.n_layers = 3;
    r->stages.push_back(stage(StageId::InputEmbeddings, -1, 0));
    for (int layer = 0; layer < 3; ++layer)
        if (layer != skip) r->stages.push_back(stage(StageId::AttentionNorm, layer, 0)), r->stages.push_back(stage(StageId::FfnResidual, layer, 0));
    return r;
}
}  // namespace

TEST_CASE("compare grid: a layer B skipped is only in A, one A skipped only in B, the rest paired") {
    const auto cmp = compareRuns(run(-1), "a.trace", *run(1), "b.trace");
    const CompareGrid g = compareGrid(*cmp, 0);
    REQUIRE(g.stages.size() == 3);
    for (size_t row = 0; row < g.stages.size(); ++row) {
        REQUIRE(g.cells[row].size() == 4);  // outside the layers, then layers 1 to 3
        const bool inLayers = g.stages[row] != StageId::InputEmbeddings;
        CHECK((g.cells[row][0].pair != nullptr) == !inLayers);
        if (!inLayers) continue;
        CHECK(g.cells[row][1].pair);
        CHECK(g.cells[row][2].pair == nullptr);
        CHECK(g.cells[row][2].only == CompareGrid::Only::A);
        CHECK(g.cells[row][3].pair);
    }
    const CompareGrid other = compareGrid(*compareRuns(run(2), "a.trace", *run(-1), "b.trace"), 0);
    CHECK(other.cells[1][3].only == CompareGrid::Only::B);
    // Another step has none of these stages.
    CHECK(compareGrid(*cmp, 1).stages.empty());
}
