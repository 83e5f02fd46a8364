// A replayed trace shows what the live run showed: a run of the bundled model recorded by the
// CLI (`llama-walkthrough --trace`) and replayed by the viewer gives, stage by stage, the same
// shapes, dtypes and statistics (min, max, mean, -inf count, first values) as the viewer's own
// live run of the same prompt, also for the tensors the trace kept only as summaries; the
// Output panel's prompt is the trace's before the replay starts.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <tuple>

#include "cli_run.h"
#include "state/engine_session.h"
#include "session_run.h"

using namespace llama;
using namespace llama::viewer;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {
// Records by (step, layer, stage, n-th of that stage there): the three Q/K/V tasks mark in any order.
using RecordKey = std::tuple<int, int, StageId, int>;
std::map<RecordKey, const StageRecord*> byKey(const HistorySnapshot& snap) {
    std::map<RecordKey, const StageRecord*> out;
    std::map<std::tuple<int, int, StageId>, int> seen;
    for (const auto& r : snap.records) out[{r->step, r->layer, r->stage, seen[{r->step, r->layer, r->stage}]++}] = r.get();
    return out;
}
}  // namespace

TEST_CASE("a replayed trace shows the live run's statistics, summary-only tensors included") {
    const std::string model = std::string(ASSETS_DIR) + "/model";
    const fs::path trace = fs::temp_directory_path() / ("viewer_replay_exact_" + std::to_string(::getpid()) + ".trace");
    const CliRun cli = runWalkthrough("--model " + model + " -q -n 3 -p \"The cat sat on the\" --trace " + trace.string());
    INFO(cli.output);
    REQUIRE(cli.exitCode == 0);

    EngineSession replay;
    ViewerSource source;
    source.trace = trace.string();
    replay.load(source);
    REQUIRE(replay.waitUntilSettled(60s));
    REQUIRE(replay.status().state == SessionState::Ready);
    // Before the replay starts, the Output panel's prompt is the trace's, not the viewer's default.
    CHECK(replay.settings().prompt == "The cat sat on the");
    const RunSettings recorded = replay.settings();
    const HistorySnapshot replayed = runToEnd(replay, recorded);

    EngineSession live;
    live.load({{ModelSource::Kind::Files, model}});
    REQUIRE(live.waitUntilSettled(60s));
    REQUIRE(live.status().state == SessionState::Ready);
    const HistorySnapshot computed = runToEnd(live, recorded);

    CHECK(replayed.text == computed.text);
    CHECK(replayed.promptTokens == computed.promptTokens);
    REQUIRE(replayed.steps.size() == computed.steps.size());
    for (size_t s = 0; s < computed.steps.size(); ++s) {
        CHECK(replayed.steps[s].sampled == computed.steps[s].sampled);
        REQUIRE(replayed.steps[s].top.size() == computed.steps[s].top.size());
        for (size_t i = 0; i < computed.steps[s].top.size(); ++i) {
            CHECK(replayed.steps[s].top[i].id == computed.steps[s].top[i].id);
            CHECK(replayed.steps[s].top[i].probability == computed.steps[s].top[i].probability);
        }
    }

    const auto a = byKey(replayed), b = byKey(computed);
    REQUIRE(a.size() == b.size());
    int compared = 0, summaryOnly = 0;
    for (const auto& [key, live] : b) {
        auto it = a.find(key);
        INFO("step " << std::get<0>(key) << ", layer index " << std::get<1>(key) << ", stage " << stageInfo(std::get<2>(key)).key);
        REQUIRE(it != a.end());
        const StageRecord& r = *it->second;
        REQUIRE(r.tensors.size() == live->tensors.size());
        for (size_t i = 0; i < live->tensors.size(); ++i) {
            const CapturedTensor &x = r.tensors[i], &y = live->tensors[i];
            INFO("tensor " << y.name);
            CHECK(x.name == y.name);
            CHECK(x.shape == y.shape);
            CHECK(x.dtype == y.dtype);
            CHECK(x.stats.min == y.stats.min);
            CHECK(x.stats.max == y.stats.max);
            CHECK(x.stats.mean == y.stats.mean);
            CHECK(x.stats.negInf == y.stats.negInf);
            CHECK(x.stats.first == y.stats.first);
            summaryOnly += !x.data;
            ++compared;
        }
    }
    INFO(compared << " tensors compared, " << summaryOnly << " of them summaries only in the trace");
    CHECK(summaryOnly > 100);  // the logits, the projections, the FFN: what used to read min 0 max 0
    CHECK(compared > summaryOnly);
    fs::remove(trace);
}
