#pragma once
// The live page's training (docs/web.md, "Train"): a tiny Llama trained from a random
// initialisation on a text the reader pastes or drops, a few steps at a time, by the engine's
// Trainer (engine/train) exactly as `llama-walkthrough train` trains: the same tokens, recipe and
// initial weights, so the same settings and seed give the CLI's losses. Samples come from the
// weights as they are; one step can be recorded as a trace, its first window's forward pass,
// loss and backward pass, for the run page's panels. No Emscripten here: the module's bindings
// (live_run.cpp) call it, and its Catch2 cases run it under Node (web/tests).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/model.h"
#include "train/trainer.h"
#include "train/training_recipe.h"

namespace llama::web {

// The model's shape and the recipe. The page's defaults: dimension 64, 2 layers, 4 query heads
// over 2 KV heads (FFN width 256: train's --multiple-of 256 and --ffn-dim-multiplier 1.3), windows
// of 64 tokens, 4 a step, AdamW at 3e-3 after 10 warmup steps, cosine over 2000 steps.
struct LiveTrainingSettings {
    TrainingShape shape{.dim = 64, .nLayers = 2, .nHeads = 4, .nKVHeads = 2};
    TrainingRecipe recipe{.seqLen = 64, .batch = 4, .steps = 2000, .warmup = 10, .lr = 3e-3f};

    // From the page's JSON ({"dim": 64, "seq_len": 64, "seed": 7, ...}; absent keys keep their
    // defaults). Throws std::invalid_argument naming the setting that is out of range or unknown.
    static LiveTrainingSettings fromJson(const nlohmann::json& j);
    // The same training as `llama-walkthrough train` words: what the page shows and the test's golden was made with.
    std::string trainCommand() const;
};

struct LiveTrainingSteps {
    int step = 0;                 // steps done
    std::vector<double> losses;   // each step's loss, in order
    float lr = 0;                 // the last step's learning rate
    double seconds = 0;
    double tokensPerSecond = 0;   // windows x seq_len per step, over the steps' time
    std::string window;           // recordedStep's: the recorded window's text
};

class LiveTraining {
public:
    // Tokenizes `textPath` as train --text does (assets/encode_data.py's documents) with the
    // tokenizer at `tokenizerPath`, and draws the initial weights. Throws, naming the file, for an
    // empty, non-UTF-8 or too short text (fewer tokens than a window, its next token and one more).
    LiveTraining(const std::string& textPath, const std::string& tokenizerPath, const LiveTrainingSettings& settings);
    ~LiveTraining();

    // Up to `count` steps (fewer when the recipe's steps are done; none left is an error).
    LiveTrainingSteps steps(int count);
    // Up to `maxTokens` tokens after `prompt` from the weights as they are now: greedy at
    // temperature 0, else sampled with `seed`. The context is one window (seq_len tokens).
    std::string sample(const std::string& prompt, int maxTokens, float temperature, uint64_t seed) const;
    // One training step, its first window recorded at `tracePath` as --trace records a run (its
    // tokens as the prompt, every stage forward and backward): the run page's panels read it.
    LiveTrainingSteps recordedStep(const std::string& tracePath);

    const Model& model() const { return model_; }
    int64_t tokens() const { return tokens_; }
    int64_t parameters() const;
    const LiveTrainingSettings& settings() const { return settings_; }

private:
    LiveTrainingSettings settings_;
    Model model_;
    int64_t tokens_ = 0;
    class FirstWindow;
    std::unique_ptr<FirstWindow> window_;
    std::unique_ptr<Trainer> trainer_;
};

}  // namespace llama::web
