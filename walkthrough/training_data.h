#pragma once
// What a training run learns from, read once for `train` from scratch or from a model and for a
// LoRA run alike: a text's tokens (--text, pretraining) or chat examples (--sft, the loss on the
// replies only), each with its held-out set of the same kind (--heldout).
#include <string>

#include "train/chat_examples.h"
#include "train/token_stream.h"
#include "train/trainer.h"
#include "train_command.h"

namespace llama::cli {

struct TrainingData {
    bool chat = false;
    TokenStream text, heldoutText;
    ChatExamples examples, heldoutExamples;

    // "Training text: FILE (...)" or "Chat examples: FILE (...)", with the held-out set's size.
    std::string describe(const TrainOptions& o) const;
    // "Recipe: N steps of B windows of ... tokens, AdamW ...": a chat example's window is as long as it.
    std::string describeRecipe(const TrainingRecipe& r) const;
    Trainer trainer(Model& model, const TrainingRecipe& recipe) const;
};

// Errors name the file (token_stream.h, chat_examples.h); chat examples are up to the recipe's
// window of tokens each.
TrainingData readTrainingData(const TrainOptions& o, const Tokenizer& tokenizer);

}  // namespace llama::cli
