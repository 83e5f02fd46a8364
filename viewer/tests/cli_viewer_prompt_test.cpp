// The viewer and the CLI give a model the same prompt tokens, in the chat format of its
// tokenizer's family: Llama 3's headers for the bundled model, Llama 2's [INST] for a Llama 2
// model (which must never see Llama 3's <|begin_of_text|> as text).
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_run.h"
#include "llama2_model_dir.h"
#include "state/engine_session.h"

using namespace llama;
using namespace llama::viewer;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Ids = std::vector<int32_t>;

namespace {
// What the viewer's EngineSession gave the model, as its capture recorded it.
Ids viewerPromptTokens(const std::string& modelDir, const RunSettings& settings) {
    EngineSession session;
    session.load({{ModelSource::Kind::Files, modelDir}});
    REQUIRE(session.waitUntilSettled(60s));
    REQUIRE(session.status().state == SessionState::Ready);
    session.start(settings, StepController::Mode::Continue, false);
    REQUIRE(session.waitUntilSettled(60s));
    INFO(session.status().message);
    REQUIRE(session.status().state == SessionState::Finished);
    HistorySnapshot snap;
    session.capture()->snapshot(snap);
    return snap.promptTokens;
}

// What llama-walkthrough gave the model, from its debug log's tokenize line.
Ids cliPromptTokens(const std::string& modelDir, const RunSettings& s) {
    const fs::path log = fs::temp_directory_path() / ("llama_cli_viewer_prompt_" + std::to_string(::getpid()) + ".log");
    std::string args = "--model " + modelDir + " -n 1 -q -p \"" + s.prompt + "\" --debug-log " + log.string();
    if (s.mode == PromptMode::Chat) args += " --chat --system \"" + s.system + "\"";
    const CliRun r = runWalkthrough(args);
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    std::ifstream in(log);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = text.find("Tokenized the prompt into");
    REQUIRE(at != std::string::npos);
    const size_t from = text.find(':', at) + 1;
    std::istringstream ids(text.substr(from, text.find('\n', from) - from));
    Ids tokens;
    for (int32_t id; ids >> id;) tokens.push_back(id);
    return tokens;
}

RunSettings settings(PromptMode mode) {
    RunSettings s;
    s.mode = mode;
    s.system = "Be brief.";
    s.prompt = "What is RoPE?";
    s.maxTokens = 1;
    return s;
}
}  // namespace

// The viewer's tokens equal the CLI's, and both are the template text for this model's family.
static void checkSamePromptTokens(const std::string& dir, const std::string& completion, const std::string& chat) {
    Session engine;
    engine.load({ModelSource::Kind::Files, dir});
    const Tokenizer& tok = *engine.model()->tokenizer;
    for (PromptMode mode : {PromptMode::Chat, PromptMode::Completion}) {
        const RunSettings s = settings(mode);
        const Ids viewer = viewerPromptTokens(dir, s);
        CHECK(viewer == cliPromptTokens(dir, s));
        CHECK(viewer == tok.encode(mode == PromptMode::Completion ? completion : chat, true));
        REQUIRE(!viewer.empty());
        CHECK(viewer.front() == tok.bosId());
    }
}

TEST_CASE("viewer and CLI: the same prompt tokens for a Llama 3 model, with Llama 3's template") {
    checkSamePromptTokens(std::string(ASSETS_DIR) + "/model", "<|begin_of_text|>What is RoPE?",
                          "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
                          "<|start_header_id|>user<|end_header_id|>\n\nWhat is RoPE?<|eot_id|>"
                          "<|start_header_id|>assistant<|end_header_id|>\n\n");
}

TEST_CASE("viewer and CLI: the same prompt tokens for a Llama 2 model, with [INST] and no <|begin_of_text|>") {
    checkSamePromptTokens(llama2ModelDirectory().string(), "<s>What is RoPE?",
                          "<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nWhat is RoPE? [/INST]");
}
