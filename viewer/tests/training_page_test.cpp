// A training step's page (export-html of `train --trace`): the map with the backward column, each
// gradient's route and the shapes it carries, and each gradient's norm beside its shape.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>

#include "cli_run.h"
#include "page/run_page_data.h"

namespace fs = std::filesystem;
using namespace llama;

TEST_CASE("a training step's page: the backward column beside the forward one, each gradient's shape and norm", "[page][train]") {
    const fs::path dir = fs::temp_directory_path() / ("llama_training_page_" + std::to_string(getpid()));
    fs::remove_all(dir);
    const fs::path trace = dir.string() + ".trace";
    const CliRun r = runWalkthrough("train --tokenizer " ASSETS_DIR "/model/tokenizer.model --text " ASSETS_DIR "/samples.txt --seq-len 16 --batch 1 "
                                    "--steps 1 --dim 32 --n-layers 1 --n-heads 2 --n-kv-heads 1 --multiple-of 16 --out " + dir.string() +
                                    " --trace " + trace.string());
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    const nlohmann::json data = page::runPageData(std::make_shared<const TraceRun>(readTrace(trace.string())),
                                                  page::RunPageOptions{.tracePath = trace.string(), .budgetBytes = 0});
    CHECK(data.at("training").at("windows") == 1);
    const nlohmann::json& map = data.at("map");
    int backward = 0;
    for (const auto& b : map.at("boxes")) backward += b.value("backward", false);
    CHECK(backward == 18);
    // Every gradient's arrow has its route; the softmax's gradient flows up into the scaling's.
    bool softmaxUp = false;
    for (size_t i = 0; i < map.at("arrows").size(); ++i) {
        const auto& a = map.at("arrows")[i];
        if (!map.at("boxes")[a.at("from").get<size_t>()].value("backward", false)) continue;
        CHECK(a.at("route").size() >= 2);
        if (map.at("boxes")[a.at("from").get<size_t>()].at("key") == "scores_softmax_backward") {
            CHECK(map.at("boxes")[a.at("to").get<size_t>()].at("key") == "scores_scale_backward");
            CHECK(map.at("views")[0].at("arrows")[i] == "dScores [2 16 16]");
            softmaxUp = true;
        }
    }
    CHECK(softmaxUp);
    // The stage list: a backward stage's gradients with their norms, as the log line gives them.
    bool norm = false;
    for (const auto& s : data.at("stages"))
        if (s.at("key") == "scores_softmax_backward")
            for (const auto& t : s.at("tensors")) norm = t.at("name") == "dScores" && t.contains("norm") && !t.at("norm").get<std::string>().empty();
    CHECK(norm);
    fs::remove_all(dir);
    fs::remove(trace);
}
