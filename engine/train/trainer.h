#pragma once
// The training loop of assets/train.py, one step at a time: `batch` windows of seqLen + 1 tokens
// at random places of the training stream, each through the forward pass, the loss and the
// backward pass; then the gradients clipped and one AdamW update at the step's learning rate.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "model/inference_context.h"
#include "model/llama_transformer.h"
#include "model/model.h"
#include "train/adamw.h"
#include "model/forward_tape.h"
#include "model/gradients.h"
#include "train/training_recipe.h"
#include "train/training_step.h"

namespace llama {

struct TrainingStepReport {
    int step = 0;            // steps done, this one included
    double loss = 0;         // the batch's mean cross-entropy, nats per token
    double gradientNorm = 0; // before clipping
    float lr = 0;
    int64_t tokens = 0;      // the windows' input tokens
};

class Trainer {
public:
    // model: F32 weights, updated in place. Throws when the training stream is shorter than one
    // window, or the held-out stream (when given) too.
    Trainer(Model& model, const TrainingRecipe& recipe, std::vector<int32_t> train, std::vector<int32_t> heldout);
    // Supervised fine-tuning: each window a whole example (train/chat_examples.h) picked at random,
    // scored where its targets are not -1; the held-out loss is over every held-out example's.
    // Throws when there is no training example.
    Trainer(Model& model, const TrainingRecipe& recipe, std::vector<TrainingWindow> examples, std::vector<TrainingWindow> heldout);

    TrainingStepReport step();
    // Mean cross-entropy over the held-out stream cut into windows of seqLen (as train.py's
    // heldout_loss), or over the held-out examples' scored tokens, run without observers.
    double heldoutLoss() const;
    int stepsDone() const { return adamw_.steps(); }
    // The training passes' context: attach a debug log or a stepper to watch them.
    InferenceContext& context() { return ctx_; }

    // A checkpoint (training_checkpoint.cpp): the weights in Meta's layout (F32), AdamW's moments,
    // and the step, the recipe and the window generator's state, so that a run resumed from it
    // computes the same bits as one never stopped. `extra` goes into training.json as it is.
    void save(const std::string& dir, const std::string& extra) const;
    // Continues from a checkpoint of a run with the same recipe and model (refused naming the
    // first difference): AdamW's moments, the step and the windows. The weights are the model's,
    // loaded from the same directory by the caller. Returns `extra` as saved.
    std::string restore(const std::string& dir);

private:
    // Either train (pretraining's stream) or examples (fine-tuning's) is empty.
    Trainer(Model& model, const TrainingRecipe& recipe, std::vector<int32_t> train, std::vector<TrainingWindow> examples,
            std::vector<TrainingWindow> heldout);

    Model& model_;
    TrainingRecipe recipe_;
    std::vector<int32_t> train_;
    std::vector<TrainingWindow> examples_;  // fine-tuning's, in place of train_
    std::vector<TrainingWindow> heldout_;
    LlamaTransformer transformer_;
    InferenceContext ctx_;
    ForwardTape tape_;
    Gradients grads_;
    AdamW adamw_;
    std::mt19937_64 windows_;  // the same windows on every machine: the engine's output, not a distribution's
};

}  // namespace llama
