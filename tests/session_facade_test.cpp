// The session facade both front ends drive the engine through: the prompt in the chat format of
// the loaded tokenizer's family (Llama 3's headers, Llama 2's [INST]), runs watched by observers
// and stopped from outside, and dry-run loading.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "llama2_model_dir.h"
#include "ml/ops.h"
#include "session/session.h"

using namespace llama;
namespace fs = std::filesystem;

namespace {
const std::string kBundledDir = std::string(ASSETS_DIR) + "/model";

void setChat(Session& s, const std::string& system, const std::string& user) {
    s.settings().mode = PromptMode::Chat;
    s.settings().system = system;
    s.settings().prompt = user;
}

struct StageCounter : StageObserver {
    int stages = 0;
    std::function<void(const StageEvent&)> also;
    void onStage(const StageEvent& e) override {
        ++stages;
        if (also) also(e);
    }
};
}  // namespace

TEST_CASE("Session: a Llama 3 model's prompt has Llama 3's headers", "[session]") {
    Session s;
    s.load({ModelSource::Kind::Files, kBundledDir});
    CHECK(s.settings().prompt == kDefaultPrompt);
    CHECK(s.promptText() == std::string("<|begin_of_text|>") + kDefaultPrompt);
    setChat(s, "Be brief.", "Hi");
    CHECK(s.promptText() ==
          "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
          "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
    const auto tokens = s.promptTokens();
    const Tokenizer& tok = *s.model()->tokenizer;
    CHECK(tokens == tok.encode(s.promptText(), true));
    CHECK(tokens.front() == tok.bosId());
    CHECK(tok.decodeToken(tokens[1]) == "<|start_header_id|>");  // a special token, not text
}

TEST_CASE("Session: a Llama 2 model's prompt has [INST] and no <|begin_of_text|>", "[session][sentencepiece]") {
    Session s;
    s.load({ModelSource::Kind::Files, llama2ModelDirectory().string()});
    CHECK(s.promptText() == std::string("<s>") + kDefaultPrompt);
    setChat(s, "Be brief.", "What is RoPE?");
    CHECK(s.promptText() == "<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nWhat is RoPE? [/INST]");
    const auto tokens = s.promptTokens();
    const Tokenizer& tok = *s.model()->tokenizer;
    CHECK(tokens == tok.encode(s.promptText(), true));
    CHECK(tokens.front() == 1);  // <s>, once
    CHECK(std::count(tokens.begin(), tokens.end(), 1) == 1);
    CHECK(tok.decode(tokens).find("begin_of_text") == std::string::npos);
}

TEST_CASE("Session: a run is given the prompt tokens, watched by its observers, and stops on request", "[session]") {
    Session s;
    s.load({ModelSource::Kind::Synthetic, "tiny", 7});
    s.settings().prompt = "hello";
    s.settings().maxTokens = 3;
    StageCounter counter;
    s.addObserver(&counter);
    GenerationResult r = s.run();
    CHECK(r.promptTokens == s.promptTokens());
    CHECK(r.generatedTokens.size() == 3);
    CHECK(r.stopReason == StopReason::MaxTokens);
    const int stagesOfOneRun = counter.stages;
    CHECK(stagesOfOneRun > 0);

    // A stop requested while the engine computes (here by an observer, on the engine's thread).
    counter.also = [&](const StageEvent& e) {
        if (e.stage == StageId::Sample) s.requestStop();
    };
    r = s.run();
    CHECK(r.stopReason == StopReason::Stopped);
    CHECK(r.generatedTokens.empty());
    s.requestStop();  // between runs: nothing to stop, and the next run is not affected

    s.clearObservers();
    counter.stages = 0;
    r = s.run();
    CHECK(r.stopReason == StopReason::MaxTokens);
    CHECK(counter.stages == 0);
}

TEST_CASE("Session: a dry run loads shapes only, from a preset or a model directory's params.json", "[session][dry-run]") {
    Session s;
    s.load({ModelSource::Kind::Synthetic, "tiny", 7}, {.shapesOnly = true, .maxSeqLen = 64});
    const Model& m = *s.model();
    CHECK_THAT(m.format, Catch::EndsWith(", dry run: shape-only weights"));
    CHECK(m.args.max_seq_len == 64);
    CHECK(!m.tensors.front().second.hasData());
    s.settings().maxTokens = 2;
    CHECK(s.run().generatedTokens.size() == 2);  // fixed stand-in tokens

    const Model dir = loadModelSource({ModelSource::Kind::Files, kBundledDir}, {.shapesOnly = true});
    CHECK(dir.format == "dry run: shape-only weights");
    CHECK(dir.args.dim == 256);
    CHECK(!dir.tensors.front().second.hasData());

    const fs::path empty = fs::temp_directory_path() / ("llama_session_dry_" + std::to_string(::getpid()));
    fs::create_directories(empty);
    CHECK_THROWS_WITH(loadModelSource({ModelSource::Kind::Files, empty.string()}, {.shapesOnly = true}),
                      Catch::Contains("missing params.json (a dry run reads params.json and tokenizer.model of Meta's layout"));
}

TEST_CASE("Session: a source describes itself, and running before a load is an error", "[session]") {
    CHECK(ModelSource{ModelSource::Kind::Synthetic, "tiny"}.describe() == "synthetic preset 'tiny' (random weights)");
    CHECK(ModelSource{ModelSource::Kind::Files, "/m"}.describe() == "/m");
    Session s;
    CHECK_THROWS_WITH(s.run(), "no model is loaded");
}

// bench measures the forward pass through the facade: a fresh context and one pass in it. Its
// last row's argmax is the greedy run's first token, and a decode step from there its second.
TEST_CASE("Session: forward passes in a context of their own give the greedy run's tokens", "[session][bench]") {
    Session s;
    s.load({ModelSource::Kind::Files, kBundledDir});
    s.settings().maxTokens = 2;
    const GenerationResult run = s.run();
    REQUIRE(run.generatedTokens.size() == 2);

    InferenceContext ctx = s.newContext();
    StageCounter counter;
    ctx.addObserver(&counter);
    const std::vector<int32_t> prompt = s.promptTokens();
    const Tensor logits = s.forward(ctx, prompt, 0);
    REQUIRE(logits.dim(0) == int64_t(prompt.size()));
    const Tensor last = ml::Reshape(ml::Slice(logits, logits.dim(0) - 1, logits.dim(0)), {logits.dim(1)});
    const int32_t first = int32_t(ml::Argmax(last));
    CHECK(first == run.generatedTokens[0]);
    CHECK(counter.stages > 0);  // the caller's observers watch
    const Tensor step = s.forward(ctx, {first}, int(prompt.size()));
    CHECK(int32_t(ml::Argmax(ml::Reshape(step, {step.dim(1)}))) == run.generatedTokens[1]);
}

TEST_CASE("Session: the warm-up pass leaves a run's stages, logits and tokens as they were", "[session]") {
    // The CLI warms up by default (llama-cli's way): one pass in a context of its own, watched by
    // nobody. A run after it must be the run without it, bit for bit.
    struct Run {
        int stages = 0;
        std::vector<std::vector<float>> logits;  // every sample stage's logits
        std::vector<int32_t> tokens;
    };
    auto run = [](bool warmUp) {
        Session s;
        s.load({ModelSource::Kind::Files, kBundledDir});
        s.settings().maxTokens = 6;
        s.settings().warmUp = warmUp;
        Run out;
        StageCounter counter;
        counter.also = [&](const StageEvent& e) {
            if (const Tensor* l = e.stage == StageId::Sample ? e.tensorField("logits") : nullptr)
                out.logits.emplace_back(l->data<float>(), l->data<float>() + l->numel());
        };
        s.addObserver(&counter);
        out.tokens = s.run().generatedTokens;
        out.stages = counter.stages;
        return out;
    };
    const Run cold = run(false), warm = run(true);
    REQUIRE(cold.logits.size() == 6);
    CHECK(warm.stages == cold.stages);
    CHECK(warm.tokens == cold.tokens);
    CHECK(warm.logits == cold.logits);  // float ==: the same values; the bits, but for NaN, which logits never hold here
}
