// The live page's training (web/module/live_training.h), compiled into the browser build's test
// module and run under Node: a few steps lower the loss, the same settings and seed give the
// native CLI's losses and weights (tests/fixtures/train/live_page_losses.json, made by
// make_live_page_golden.sh with llama-walkthrough train), a recorded step holds a window's forward
// and backward stages and makes the run page's data, and bad input is refused by name.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "../module/live_training.h"
#include "formats/meta/zip_writer.h"
#include "page/run_page_data.h"
#include "trace/trace_reader.h"

using namespace llama;
using namespace llama::web;

namespace {

const std::string kTokenizer = std::string(ASSETS_DIR) + "/model/tokenizer.model";
const std::string kText = std::string(TEST_FIXTURES_DIR) + "/train/live_page_text.txt";

// A file of its own under the system's temporary folder (Node's, under NODERAWFS).
std::string scratchFile(const std::string& name, const std::string& contents) {
    const auto dir = std::filesystem::temp_directory_path() / fmt::format("live-training-{}", ::getpid());
    std::filesystem::create_directories(dir);
    const std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << contents;
    return path;
}

}  // namespace

TEST_CASE("Live page training: the native train command's losses, step for step", "[train][web]") {
    std::ifstream in(std::string(TEST_FIXTURES_DIR) + "/train/live_page_losses.json");
    const nlohmann::json golden = nlohmann::json::parse(in);
    LiveTraining training(kText, kTokenizer, LiveTrainingSettings::fromJson({{"seq_len", 32}, {"batch", 2}}));
    CHECK(training.settings().trainCommand().ends_with(golden["train"].get<std::string>()));
    CHECK(training.parameters() == 647488);
    const LiveTrainingSteps run = training.steps(int(golden["train_loss"].size()));
    REQUIRE(run.losses.size() == golden["train_loss"].size());
    for (size_t i = 0; i < run.losses.size(); ++i) {
        INFO("step " << i + 1);
        CHECK(fmt::format("{:.6f}", run.losses[i]) == golden["train_loss"][i].get<std::string>());
    }
    CHECK(run.step == 8);
    // Every weight after the 8 steps, bit for bit.
    const nlohmann::json& crcs = golden["weights_crc32"];
    CHECK(crcs.size() == training.model().tensors.size());
    for (const auto& [name, weight] : training.model().tensors) {
        INFO(name);
        REQUIRE(crcs.contains(name));
        CHECK(fmt::format("{:08x}", crc32({static_cast<const std::byte*>(weight.rawData()), weight.byteSize()})) == crcs[name].get<std::string>());
    }
    CHECK(run.losses.back() < run.losses.front() - 0.5);
    CHECK(run.tokensPerSecond > 0);
}

TEST_CASE("Live page training: a few steps lower the loss on a repetitive text and the sample follows the weights", "[train][web]") {
    std::string text;
    for (int i = 0; i < 30; ++i) text += "the cat sat on the mat and the dog sat on the log. ";
    const std::string path = scratchFile("cats.txt", text);
    LiveTrainingSettings settings = LiveTrainingSettings::fromJson({{"lr", 0.01}, {"seed", 7}, {"seq_len", 32}, {"batch", 2}});
    LiveTraining training(path, kTokenizer, settings);
    const std::string before = training.sample("the cat", 8, 0, 1);
    const LiveTrainingSteps run = training.steps(10);
    REQUIRE(run.losses.size() == 10);
    CHECK(run.losses.back() < run.losses.front() - 2);
    const std::string after = training.sample("the cat", 8, 0, 1);
    CHECK(after != before);
    CHECK(training.sample("the cat", 8, 0, 1) == after);  // greedy: the same text again
    CHECK(training.sample("the cat", 8, 1.0f, 42) == training.sample("the cat", 8, 1.0f, 42));  // a seed: the same draw
}

TEST_CASE("Live page training: a recorded step holds its first window, forward and backward, for the run page", "[train][web]") {
    std::ifstream in(kText);
    const std::string kGenesis((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LiveTraining training(kText, kTokenizer, LiveTrainingSettings::fromJson({{"seq_len", 16}, {"batch", 2}}));
    training.steps(1);
    const std::string trace = scratchFile("step.trace", "");
    std::filesystem::remove(trace);
    const LiveTrainingSteps run = training.recordedStep(trace);
    CHECK(run.step == 2);
    const auto recorded = std::make_shared<const TraceRun>(readTrace(trace));
    CHECK(recorded->promptTokens.size() == 16);
    CHECK(kGenesis.find(run.window) != std::string::npos);  // the window's text, a piece of the text trained on
    auto count = [&](StageId id) { return std::count_if(recorded->stages.begin(), recorded->stages.end(), [&](const TracedStage& s) { return s.stage == id; }); };
    CHECK(count(StageId::Loss) == 1);  // one window of the step's two
    CHECK(count(StageId::ScoresSoftmaxBackward) == 2);  // one per layer
    CHECK(count(StageId::InputEmbeddingsBackward) == 1);
    CHECK(recorded->stages.back().stage == StageId::InputEmbeddingsBackward);
    const nlohmann::json data = page::runPageData(recorded, page::RunPageOptions{.tracePath = trace, .comparePath = {}, .chapterBase = {}});
    CHECK(data["stages"].size() == recorded->stages.size());
    std::filesystem::remove(trace);
}

TEST_CASE("Live page training: bad input is refused with a message that names it", "[train][web]") {
    const LiveTrainingSettings defaults;
    CHECK_THROWS_WITH(LiveTraining(scratchFile("empty.txt", ""), kTokenizer, defaults), Catch::Contains("empty.txt' is empty"));
    CHECK_THROWS_WITH(LiveTraining(scratchFile("short.txt", "In the beginning God created the heaven and the earth."), kTokenizer, defaults),
                      Catch::Contains("fewer than one window of --seq-len 64"));
    CHECK_THROWS_WITH(LiveTraining(scratchFile("binary.txt", std::string("abc\xff\xfe", 5)), kTokenizer, defaults),
                      Catch::Contains("binary.txt' is not UTF-8 text: byte 0xFF at byte offset 3"));
    CHECK_THROWS_WITH(LiveTrainingSettings::fromJson({{"dim", 4}}), Catch::Contains("training setting dim: 4 is not a whole number from 8 to 1024"));
    CHECK_THROWS_WITH(LiveTrainingSettings::fromJson({{"lr", "fast"}}), Catch::Contains("training setting lr"));
    CHECK_THROWS_WITH(LiveTrainingSettings::fromJson({{"epochs", 3}}), Catch::Contains("unknown training setting 'epochs'"));
    CHECK_THROWS_WITH(LiveTraining(kText, kTokenizer, LiveTrainingSettings::fromJson({{"dim", 66}})), Catch::Contains("n_heads"));
    LiveTraining done(kText, kTokenizer, LiveTrainingSettings::fromJson({{"steps", 1}, {"seq_len", 8}, {"batch", 1}}));
    CHECK(done.steps(5).losses.size() == 1);
    CHECK_THROWS_WITH(done.steps(1), Catch::Contains("has done all its 1 steps"));
}
