// A patch trace's page (export-html of `patch --trace`): its grid's numbers as the trace has
// them, each cell pointing at its stage in the clean run, the corrupted run as the comparison;
// and a page (and an exported panel's caption) names the grammar a run was constrained by.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>

#include "cli_run.h"
#include "page/run_page_data.h"
#include "state/export_caption.h"
#include "trace/patch_trace.h"

namespace fs = std::filesystem;
using namespace llama;

namespace {
fs::path temp(const std::string& name) { return fs::temp_directory_path() / ("llama_patch_page_" + std::to_string(getpid()) + "_" + name); }
}  // namespace

TEST_CASE("a patch trace's page: the heatmap's cells as the trace has them, each opening its stage in both runs", "[page][patch]") {
    const fs::path trace = temp("moses.trace");
    const CliRun r = runWalkthrough("patch --model " ASSETS_DIR "/model --clean 'And Moses went unto Aaron. And Aaron said unto' --corrupt 'And Joseph "
                                    "went unto Aaron. And Aaron said unto' --answer ' Moses' --wrong ' Joseph' --site attention --trace " +
                                    trace.string());
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    const auto patch = std::make_shared<const PatchTrace>(readPatchTrace(trace.string()));
    const nlohmann::json data = page::runPageData(std::make_shared<const TraceRun>(patch->clean),
                                                  page::RunPageOptions{.tracePath = trace.string(), .patch = patch, .budgetBytes = 0});
    const nlohmann::json& p = data.at("patch");
    CHECK(p.at("site") == "attention");
    CHECK(p.at("stageKey") == "attention_wo");
    REQUIRE(p.at("cells").size() == 8u);
    REQUIRE(p.at("labels").size() == 11u);
    CHECK(p.at("labels")[2] == "2  Moses/ Joseph");
    for (int l = 0; l < 8; ++l) {
        const int stage = p.at("layers")[size_t(l)].at("stage");
        CHECK(data.at("stages")[size_t(stage)].at("key") == "attention_wo");
        CHECK(data.at("stages")[size_t(stage)].at("layer") == l);
        CHECK(data.at("stages")[size_t(stage)].at("step") == 0);
        CHECK_THAT(p.at("layers")[size_t(l)].at("corrupt").get<std::string>(), Catch::StartsWith("output [11 256] min"));
        for (int c = 0; c < 11; ++c) CHECK(p.at("cells")[size_t(l)][size_t(c)].at("recovered").get<double>() == patch->grid.recovered(l, c));
    }
    CHECK(data.at("compare").at("nameB") == trace.filename().string() + " (corrupted)");
    CHECK(data.at("run").at("prompt") == "And Moses went unto Aaron. And Aaron said unto");
    // export-html writes it, and a plain trace's page has no heatmap.
    const CliRun html = runWalkthrough("export-html " + trace.string() + " --out " + temp("moses.html").string());
    CHECK(html.exitCode == 0);
    CHECK(fs::file_size(temp("moses.html")) > 10000);
    fs::remove(temp("moses.html"));
    fs::remove(trace);
}

TEST_CASE("a page and an exported caption name the grammar a run was constrained by", "[page][grammar]") {
    const fs::path trace = temp("json.trace");
    const CliRun r = runWalkthrough("--model " ASSETS_DIR "/model -p 'The answer:' -n 3 -q --json --trace " + trace.string());
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    const nlohmann::json data = page::runPageData(std::make_shared<const TraceRun>(readTrace(trace.string())),
                                                  page::RunPageOptions{.tracePath = trace.string(), .budgetBytes = 0});
    CHECK(data.at("grammar") == "json");
    fs::remove(trace);
    viewer::CaptionFacts f{"assets/model", "The answer:", 0, -1, 8, -1, 20, "Sampling", "", "json"};
    CHECK_THAT(viewer::exportCaption(f), Catch::EndsWith("  |  stage 20 Sampling  |  GRAMMAR json"));
    f.grammar.clear();
    CHECK(viewer::exportCaption(f).find("GRAMMAR") == std::string::npos);
}
