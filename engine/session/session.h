#pragma once
// What a front end does with the engine, in one place: load a model, hold the settings of the
// next generation, build its prompt in the chat format of the loaded tokenizer's family, run it
// with observers watching, and stop it from another thread. The CLI (walkthrough/) and the
// viewer's EngineSession both drive the engine through a Session.
//
//   Session session;
//   session.load({ModelSource::Kind::Files, "assets/model"});
//   session.settings().prompt = "In the beginning";
//   session.addObserver(&debugLog);
//   GenerationResult r = session.run([](const std::string& piece) { std::cout << piece; });
#include <functional>
#include <memory>
#include <atomic>
#include <string>
#include <vector>

#include "batch/parallel_generation.h"
#include "batch/speculative_generation.h"
#include "generate/chat_template.h"
#include "generate/generator.h"
#include "generate/grammar.h"
#include "generate/sampler.h"
#include "session/model_source.h"

namespace llama {

inline constexpr const char* kDefaultPrompt = "And the LORD spake unto Moses, saying,";

struct GenerationSettings {
    PromptMode mode = PromptMode::Completion;
    std::string system;  // chat mode's system prompt; none when empty
    std::string prompt = kDefaultPrompt;
    SamplingSettings sampling;
    int maxTokens = 64;
    // In chat mode, special-token text typed in the prompt or the system prompt becomes control
    // tokens (a completion prompt's always does; see chat_template.h).
    bool allowSpecial = false;
    // An experiment instead of the model (model/what_if.h); the default is the model itself.
    WhatIf whatIf;
    // Generated text constrained to this grammar (generate/grammar.h; --grammar, --json); none when null.
    std::shared_ptr<const Grammar> grammar;
    std::string grammarSource;  // where it came from, as the log names it: a file, "--grammar-text", "--json"
    // Speculative decoding (batch/speculative_generation.h): the draft is another model's files
    // (draftModel) or the first draftLayers layers; it proposes draftMax tokens per target pass.
    std::string draftModel;
    int draftLayers = 0;
    int draftMax = 8;
    int nUbatch = kDefaultUbatch;  // tokens per forward pass of a batched run (llama.cpp's -ub)
    // Before the run, one unobserved, untimed pass over two tokens in a context of its own, as
    // llama-cli warms up: the prompt's timed pass then meets warm caches and code. Without it a
    // first pass on this machine's VMs took 1.2-2x as long as a warm one in a third of runs, for
    // llama-cli --no-warmup as for us (docs/speed.md, "A warm first pass"). The CLI's default.
    bool warmUp = false;
    bool speculative() const { return !draftModel.empty() || draftLayers > 0; }
};

class Session {
public:
    // Loads (or synthesizes) the model and binds a transformer to it, replacing any loaded one.
    void load(const ModelSource& source, const LoadOptions& options = {});
    // Lets the loaded model (and the draft's) go, as before the first load: its weights are freed
    // once no one else shares them (the browser build frees a reader's model before reading the next).
    void unload();
    // Null before a load. Shared, so a UI thread can keep showing it.
    std::shared_ptr<const Model> model() const { return model_; }
    // The loaded model's transformer (its weights, for the logit lens). Throws before a load.
    const LlamaTransformer& transformer() const;

    GenerationSettings& settings() { return settings_; }
    const GenerationSettings& settings() const { return settings_; }

    // What the model is given: the settings' prompt in the loaded tokenizer's chat format
    // (Llama 3's headers or Llama 2's [INST]), as text and as tokens, BOS first.
    Prompt prompt() const;
    std::string promptText() const { return prompt().text(); }
    std::vector<int32_t> promptTokens() const;

    // Observers watch every stage of the runs that follow, in the order added.
    void addObserver(StageObserver* observer) { observers_.push_back(observer); }
    void clearObservers() { observers_.clear(); }

    // One generation with the settings, in a fresh context (KV caches, shape-only in a dry run).
    // onText receives the generated text in whole UTF-8 characters as it comes.
    GenerationResult run(const std::function<void(const std::string&)>& onText = {});
    // Many prompts generated together (batch/parallel_generation.h): each of `prompts` formatted
    // with the settings (mode, system prompt), sampled with the settings' sampling, up to
    // settings.maxTokens tokens each; the parallel settings' own sampling and maxTokens are ignored.
    // What-if experiments do not apply to a batch: they are refused.
    ParallelResult runParallel(const std::vector<std::string>& prompts, ParallelSettings parallel,
                               const std::function<void(int, const std::string&)>& onText = {});
    // From any thread or a signal handler: the run in progress ends at its next stage boundary,
    // stopped by "stopped". The next run starts afresh.
    void requestStop();

    // For measuring the forward pass itself (`bench` times prefill and decode steps): a fresh
    // context for the loaded model, and one pass of the loaded transformer in it, `tokens` placed
    // from startPos; the logits of every position, or of the last (LlamaTransformer::Forward). The
    // caller adds the observers it measures.
    InferenceContext newContext() const;
    Tensor forward(InferenceContext& ctx, const std::vector<int32_t>& tokens, int startPos, LogitRows rows = LogitRows::Every) const;

private:
    const Model& loadedModel() const;
    GenerationResult runSpeculative(InferenceContext& ctx, const std::function<void(const std::string&)>& onText);

    std::shared_ptr<const Model> model_;
    std::unique_ptr<LlamaTransformer> transformer_;
    // The last draft model loaded for speculative decoding, and its file.
    std::shared_ptr<const Model> draftModel_;
    std::string draftModelPath_;
    bool shapesOnly_ = false;
    GenerationSettings settings_;
    std::vector<StageObserver*> observers_;
    std::atomic<bool> stop_{false};
    static_assert(std::atomic<bool>::is_always_lock_free);
};

}  // namespace llama
