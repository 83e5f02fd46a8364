#include "training_data.h"

#include <fmt/format.h>

namespace llama::cli {

namespace {
std::string count(const ChatExamples& e) { return fmt::format("{} example{}", e.windows.size(), e.windows.size() == 1 ? "" : "s"); }
}  // namespace

TrainingData readTrainingData(const TrainOptions& o, const Tokenizer& tokenizer) {
    TrainingData d;
    d.chat = !o.sft.empty();
    if (d.chat) {
        d.examples = readChatExamples(o.sft, "chat examples", tokenizer, o.recipe.seqLen);
        if (!o.heldout.empty()) d.heldoutExamples = readChatExamples(o.heldout, "held-out chat examples", tokenizer, o.recipe.seqLen);
    } else {
        d.text = readTokenStream(o.text, "training text", tokenizer);
        if (!o.heldout.empty()) d.heldoutText = readTokenStream(o.heldout, "held-out text", tokenizer);
    }
    return d;
}

std::string TrainingData::describe(const TrainOptions& o) const {
    if (chat)
        return fmt::format("Chat examples: {} ({}, {} tokens, {} of them the replies' and scored){}", o.sft, count(examples), examples.tokens, examples.scored,
                           o.heldout.empty() ? "" : fmt::format("; held out: {} ({})", o.heldout, count(heldoutExamples)));
    return fmt::format("Training text: {} ({} documents, {} bytes, {} tokens){}", o.text, text.documents, text.bytes, text.tokens.size(),
                       o.heldout.empty() ? "" : fmt::format("; held out: {} ({} tokens)", o.heldout, heldoutText.tokens.size()));
}

std::string TrainingData::describeRecipe(const TrainingRecipe& r) const {
    const std::string decay = r.lrSchedule.empty() ? fmt::format("cosine to {}x", r.minLrFrac)
                                                   : fmt::format("then {} recorded rates, {} at step {} to {} at step {}", r.lrSchedule.size(), r.lrSchedule.front().lr,
                                                                 r.lrSchedule.front().step, r.lrSchedule.back().lr, r.lrSchedule.back().step);
    return fmt::format("Recipe: {} steps of {} windows of {}{} tokens, AdamW lr {} (warmup {}, {}), weight decay {}, clip {}, seed {}", r.steps, r.batch,
                       chat ? "whole examples, up to " : "", r.seqLen, r.lr, r.warmup, decay, r.weightDecay, r.clip, r.seed);
}

Trainer TrainingData::trainer(Model& model, const TrainingRecipe& recipe) const {
    return chat ? Trainer(model, recipe, examples.windows, heldoutExamples.windows) : Trainer(model, recipe, text.tokens, heldoutText.tokens);
}

}  // namespace llama::cli
