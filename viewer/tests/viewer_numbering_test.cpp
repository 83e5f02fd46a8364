// One numbering: every label the viewer puts on a layer or head counts from 1, as the debug log,
// the stepper and `diff` do; paths are shown relative to the working directory or by name.
#include <catch2/catch.hpp>

#include <filesystem>

#include "stages/numbering.h"
#include "state/panel_labels.h"
#include "state/timeline.h"

using namespace llama;
using namespace llama::viewer;

namespace {
std::shared_ptr<const StageRecord> record(int index, StageId stage, int layer, int step) {
    auto r = std::make_shared<StageRecord>();
    r->index = index, r->stage = stage, r->layer = layer, r->step = step;
    return r;
}
}  // namespace

TEST_CASE("the timeline's first layer group is Layer 1") {
    const std::vector<std::shared_ptr<const StageRecord>> records = {record(0, StageId::Mask, -1, 0), record(1, StageId::BlockForward, 0, 0),
                                                                     record(2, StageId::BlockForward, 1, 0)};
    const auto steps = buildTimeline(records);
    REQUIRE(steps.size() == 1);
    REQUIRE(steps[0].layers.size() == 2);
    CHECK(timelineLayerTitle(0) == "Layer 1");
    CHECK(timelineLayerTitle(int(steps[0].layers.size()) - 1) == "Layer 2");
}

TEST_CASE("a batch trace's timeline titles each step by the ubatch it runs") {
    // Step 0: the shared BOS alone; step 1: both prompts' three tokens in one ubatch (llama.cpp's
    // n_tokens and n_seqs); step 2 has no ubatch stage.
    TraceRun run;
    run.run.batch = TraceBatchInfo{};
    auto ubatch = [](int nTokens, int nSeqs) {
        TracedStage s;
        s.stage = StageId::UBatchTokens;
        s.ubatch = TracedUBatch{0, nTokens, nSeqs, nSeqs, {}};
        return s;
    };
    run.stages = {ubatch(1, 1), TracedStage{}, ubatch(6, 2), TracedStage{}};
    const std::vector<std::shared_ptr<const StageRecord>> records = {record(0, StageId::UBatchTokens, -1, 0), record(1, StageId::Mask, -1, 0),
                                                                     record(2, StageId::UBatchTokens, -1, 1), record(3, StageId::Mask, -1, 1),
                                                                     record(4, StageId::Mask, -1, 2)};
    const auto steps = buildTimeline(records);
    REQUIRE(steps.size() == 3);
    HistorySnapshot snap;
    snap.promptTokens = {1, 2, 3};
    CHECK(timelineStepTitle(steps[0], snap, &run) == "Step 0: ubatch 1 (1 token, 1 sequence)");
    CHECK(timelineStepTitle(steps[1], snap, &run) == "Step 1: ubatch 2 (6 tokens, 2 sequences)");
    CHECK(timelineStepTitle(steps[2], snap, &run) == "Step 2: decode 1 token");
    // A timeline grown record by record numbers the ubatches as the whole one does.
    std::vector<TimelineStep> grown;
    for (size_t i = 1; i <= records.size(); ++i)
        extendTimeline(grown, std::vector(records.begin(), records.begin() + std::ptrdiff_t(i)), i - 1);
    REQUIRE(grown.size() == 3);
    CHECK(timelineStepTitle(grown[1], snap, &run) == "Step 1: ubatch 2 (6 tokens, 2 sequences)");
    // Without the trace (a live run) the titles are a single sequence's.
    CHECK(timelineStepTitle(steps[0], snap) == "Step 0: prefill (3 tokens)");
    CHECK(timelineStepTitle(steps[1], snap) == "Step 1: decode 1 token");
}

TEST_CASE("panel headers, the log's column, breakpoints and the held stage name layer index 0 as layer 1") {
    const auto r = record(5, StageId::ScoresSoftmax, 0, 0);
    CHECK(recordWhere(*r) == "scores_softmax, layer 1, step 0");
    CHECK(recordWhere(*record(6, StageId::Logits, -1, 2)) == "logits, step 2");
    CHECK(logLinePrefix(*r) == "s0 L1   13  ");
    CHECK(logLinePrefix(*record(6, StageId::Logits, -1, 2)) == "s2      19  ");
    CHECK(breakpointLabel({StageId::ScoresSoftmax, 0, std::nullopt}) == "13 scores_softmax (layer 1)");
    CHECK(breakpointLabel({StageId::ScoresSoftmax, std::nullopt, std::nullopt}) == "13 scores_softmax (every layer)");
    CHECK(heldLayerLabel(0) == "| layer 1");
    CHECK(heldLayerLabel(-1).empty());
    // The attention, lens and KV-cache panels label rows and heads with the engine's function.
    CHECK(layerLabel(0) == "layer 1");
    CHECK(headLabel(0) == "head 1");
}

TEST_CASE("Compare's axis runs out, L1 .. LN") {
    CHECK(compareColumnLabel(0) == "out");
    CHECK(compareColumnLabel(1) == "L1");
    CHECK(compareColumnLabel(8) == "L8");
}

TEST_CASE("exported captions and file names name layer index 0 as layer 1 / L1") {
    const auto r = record(5, StageId::ScoresSoftmax, 0, 0);
    CHECK(stageCaption(*r) == "stage 13 Scores: softmax | layer 1 | step 0");
    CHECK(stageCaption(*r, 0) == "stage 13 Scores: softmax | layer 1 | head 1 | step 0");
    CHECK(stageCaption(*record(6, StageId::Logits, -1, 1)) == "stage 19 Output: logits as Float32 | step 1");
    CHECK(exportFileTag(r.get()) == "-scores_softmax-L1-s0");
    CHECK(exportFileTag(record(6, StageId::Logits, -1, 1).get()) == "-logits-s1");
    CHECK(exportFileTag(nullptr).empty());
}

TEST_CASE("scripts and fields take layer and head numbers as the log counts them") {
    CHECK(layerFromNumber("1", "step-to") == 0);
    CHECK(layerFromNumber("8", "step-to") == 7);
    CHECK_FALSE(layerFromNumber("-", "step-to"));
    CHECK_FALSE(layerFromNumber("any", "step-to"));
    CHECK_THROWS_WITH(layerFromNumber("0", "line 3: step-to"), Catch::Contains("line 3: step-to: '0' is not a layer number (1 is the first"));
    CHECK_THROWS_AS(layerFromNumber("-1", "x"), std::invalid_argument);
    CHECK_THROWS_AS(layerFromNumber("2x", "x"), std::invalid_argument);
    CHECK(headFromNumber("1", "head") == 0);
    CHECK(headFromNumber("all", "head") == -1);
    CHECK_THROWS_AS(headFromNumber("0", "head"), std::invalid_argument);
}

TEST_CASE("paths are shown relative to the working directory, or by their own name") {
    namespace fs = std::filesystem;
    const fs::path cwd = fs::current_path();
    CHECK(displayPath((cwd / "assets" / "model").string()) == "assets/model");
    CHECK(displayPath("assets/model/") == "assets/model");
    CHECK(displayPath("chapters/10-forward-pass.md") == "chapters/10-forward-pass.md");
    // Outside the working directory: the name alone, never the machine's path.
    const fs::path outside = cwd.root_path() / "nowhere-h1" / "runs" / "model.trace";
    CHECK(displayPath(outside.string()) == "model.trace");
    CHECK(displayPath((cwd.root_path() / "nowhere-h1" / "TinyLlama-1.1B" / "").string()) == "TinyLlama-1.1B");
    CHECK(displayPath("").empty());
}

TEST_CASE("viewer numbering: the attention cell pane names the value its view shows, as the steps count it") {
    CHECK(capturedCellLabel(true).find("score + mask (step 3, before the softmax") != std::string::npos);
    CHECK(capturedCellLabel(false).find("probability (step 4, after the softmax") != std::string::npos);
    // The map never puts a stage outside the layers in one.
    CHECK(mapHeading(0, -1, 0, false, 8) == "Token step 0 (prefill)   outside the layers (the block shows layer 1/8)");
    CHECK(mapHeading(2, 4, 4, false, 8) == "Token step 2 (decode)   layer 5/8");
}
