// Two recorded runs of the bundled model compared stage by stage (trace/trace_diff.h), and the
// logit lens they record.
#include <catch2/catch.hpp>

#include <algorithm>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "generate/logit_lens.h"
#include "session/session.h"
#include "trace/trace_diff.h"
#include "trace/trace_recorder.h"

using namespace llama;
namespace fs = std::filesystem;

namespace {
const char* const kDiffPrompt = "In the beginning God created the heaven and the earth.";

// Records a greedy run of 3 tokens with `whatIf` and reads it back.
TraceRun recorded(const std::string& name, const WhatIf& whatIf, float temperature = 0) {
    // The process id in the name: ctest runs these test cases in parallel processes.
    const fs::path path = fs::temp_directory_path() / ("llama_trace_diff_" + name + "_" + std::to_string(getpid()) + ".trace");
    Session s;
    s.load({ModelSource::Kind::Files, std::string(ASSETS_DIR) + "/model"});
    s.settings().prompt = kDiffPrompt;
    s.settings().maxTokens = 3;
    s.settings().whatIf = whatIf;
    s.settings().sampling.temperature = temperature;
    const LogitLens lens(s.transformer());
    TraceRecorder recorder(path.string(), *s.model(), TraceRunInfo{kDiffPrompt, 3, s.settings().sampling, false, whatIf}, TraceOptions{}, &lens);
    s.addObserver(&recorder);
    recorder.finish(s.run());
    TraceRun run = readTrace(path.string());
    fs::remove(path);
    return run;
}

const TraceRun& modelRun() {
    static TraceRun run = recorded("model", {});
    return run;
}
}  // namespace

TEST_CASE("diff: two runs of the same settings do not diverge", "[trace][diff]") {
    const TraceRun again = recorded("again", {});
    const TraceDiff diff = diffTraces(modelRun(), again);
    CHECK_FALSE(diff.firstDivergence);
    CHECK(diff.unpairedA == 0);
    CHECK(diff.unpairedB == 0);
    CHECK(diff.stages.size() == modelRun().stages.size());
    CHECK(formatTraceDiff(diff, modelRun(), again, "a", "b").find("No divergence") != std::string::npos);
}

TEST_CASE("diff: --no-mask diverges first at the mask, then in layer 1's masked scores", "[trace][diff]") {
    const TraceRun unmasked = recorded("nomask", WhatIf{.noMask = true});
    CHECK(unmasked.run.whatIf.noMask);
    const TraceDiff diff = diffTraces(modelRun(), unmasked);
    REQUIRE(diff.firstDivergence);
    const StageDifference& first = diff.stages[*diff.firstDivergence];
    CHECK(first.stage == StageId::Mask);
    CHECK(first.note == "mask only in A");
    // Every tensor of layer 1 before the scores meet the mask is the same (the log lines differ
    // where they print the mask's shape); the softmax is not.
    for (const auto& s : diff.stages) {
        if (s.step != 0 || s.layer != 0) continue;
        if (s.stage < StageId::ScoresMask) {
            CHECK(s.difference == 0);
            CHECK_FALSE(s.mismatch);
            CHECK((s.note.empty() || s.note == "message differs"));
        }
        if (s.stage == StageId::ScoresSoftmax) {
            CHECK(s.exact);  // scores are stored: an exact difference
            CHECK(s.difference > 0.5f);
        }
    }
    const std::string report = formatTraceDiff(diff, modelRun(), unmasked, "model.trace", "nomask.trace");
    CHECK(report.find("First divergence: step 0, outside the layers, stage 4 mask: mask only in A") != std::string::npos);
    CHECK(report.find("what-if: --no-mask") != std::string::npos);
}

TEST_CASE("diff: a skipped layer leaves its stages unpaired", "[trace][diff]") {
    const TraceRun skipped = recorded("skip", WhatIf{.skipLayers = {7}});
    const TraceDiff diff = diffTraces(modelRun(), skipped);
    REQUIRE(diff.firstDivergence);
    CHECK(diff.stages[*diff.firstDivergence].stage == StageId::BlockForward);
    CHECK(diff.stages[*diff.firstDivergence].layer == 7);
    CHECK(diff.unpairedA > 0);  // layer 8's inner stages, at every step
    CHECK(diff.unpairedB == 0);
}

TEST_CASE("logit lens: after the last layer it is the model's own prediction", "[trace][lens]") {
    const TraceRun& run = modelRun();
    CHECK(run.options.lensTopK == 5);
    int lensStages = 0;
    const TracedStage* lastLayer = nullptr;
    for (const auto& s : run.stages) {
        if (s.step != 0) break;
        if (s.stage != StageId::FfnResidual) continue;
        ++lensStages;
        REQUIRE(s.lens.size() == size_t(s.tensor("output")->shape[0]));
        lastLayer = &s;
    }
    CHECK(lensStages == run.args.n_layers);
    REQUIRE(lastLayer);
    // The sample stage's top tokens (greedy runs: temperature 1) are the lens of the last layer at
    // the last position: same ids, same probabilities.
    const TracedStage* sample = nullptr;
    for (const auto& s : run.stages)
        if (s.stage == StageId::Sample && s.step == 0) sample = &s;
    REQUIRE(sample);
    const auto& lens = lastLayer->lens.back();
    REQUIRE(lens.size() == 5);
    for (size_t i = 0; i < lens.size(); ++i) {
        CHECK(lens[i].id == sample->top[i].id);
        CHECK(lens[i].probability == Approx(sample->top[i].probability).epsilon(1e-6));
    }
    CHECK(lens[0].id == run.generatedTokens[0].id);
    // Earlier layers say something else at least somewhere: the lens shows the prediction forming.
    bool anyDifferent = false;
    for (const auto& s : run.stages)
        if (s.step == 0 && s.stage == StageId::FfnResidual && s.layer == 0)
            for (size_t p = 0; p < s.lens.size(); ++p) anyDifferent |= s.lens[p][0].id != lastLayer->lens[p][0].id;
    CHECK(anyDifferent);
}

TEST_CASE("diff: stages that differ only in startPos or cacheFilled diverge", "[trace][diff][hostile]") {
    TraceRun other = modelRun();
    auto write = std::find_if(other.stages.begin(), other.stages.end(), [](const TracedStage& s) { return s.stage == StageId::CacheWrite; });
    REQUIRE(write != other.stages.end());
    write->startPos += 1;
    const TraceDiff moved = diffTraces(modelRun(), other);
    REQUIRE(moved.firstDivergence);
    CHECK_THAT(moved.stages[*moved.firstDivergence].note, Catch::Contains("startPos"));
    write->startPos -= 1;
    write->cacheFilled = write->cacheFilled.value_or(0) + 5;
    const TraceDiff filled = diffTraces(modelRun(), other);
    REQUIRE(filled.firstDivergence);
    CHECK_THAT(filled.stages[*filled.firstDivergence].note, Catch::Contains("cacheFilled"));
}
