#include "train/trainer.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <stdexcept>

#include "ml/backward_ops.h"
#include "ml/bf16_products.h"
#include "stages/non_finite_watch.h"
#include "train/training_step.h"

namespace llama {

namespace {

ModelArgs withContext(ModelArgs args, int seqLen) {
    args.max_seq_len = seqLen;
    return args;
}

// The held-out stream cut into consecutive windows of seqLen, every token scored.
std::vector<TrainingWindow> consecutiveWindows(const std::vector<int32_t>& stream, int seqLen) {
    const size_t T = size_t(seqLen), windows = stream.empty() ? 0 : (stream.size() - 1) / T;
    std::vector<TrainingWindow> out;
    for (size_t w = 0; w < windows; ++w)
        out.push_back({std::vector<int32_t>(stream.begin() + int64_t(w * T), stream.begin() + int64_t((w + 1) * T)),
                       std::vector<int32_t>(stream.begin() + int64_t(w * T + 1), stream.begin() + int64_t((w + 1) * T + 1))});
    return out;
}

}  // namespace

Trainer::Trainer(Model& model, const TrainingRecipe& recipe, std::vector<int32_t> train, std::vector<TrainingWindow> examples,
                 std::vector<TrainingWindow> heldout)
    : model_(model),
      recipe_(recipe),
      train_(std::move(train)),
      examples_(std::move(examples)),
      heldout_(std::move(heldout)),
      transformer_(model_),
      ctx_(withContext(model_.args, recipe.seqLen)),
      tape_(model_.args.n_layers),
      grads_(model_),
      adamw_(grads_, {.weightDecay = recipe.weightDecay}),
      windows_(recipe.seed) {
    ctx_.addObserver(&tape_);
}

Trainer::Trainer(Model& model, const TrainingRecipe& recipe, std::vector<int32_t> train, std::vector<int32_t> heldout)
    : Trainer(model, recipe, std::move(train), {}, consecutiveWindows(heldout, recipe.seqLen)) {
    if (int64_t(train_.size()) < recipe.seqLen + 2)
        throw std::invalid_argument(fmt::format("the training text gives {} tokens, fewer than one window of --seq-len {} plus its next token and one more",
                                                train_.size(), recipe.seqLen));
    if (!heldout.empty() && int64_t(heldout.size()) < recipe.seqLen + 1)
        throw std::invalid_argument(fmt::format("the held-out text gives {} tokens, fewer than one window of --seq-len {} plus its next token",
                                                heldout.size(), recipe.seqLen));
}

Trainer::Trainer(Model& model, const TrainingRecipe& recipe, std::vector<TrainingWindow> examples, std::vector<TrainingWindow> heldout)
    : Trainer(model, recipe, {}, std::move(examples), std::move(heldout)) {
    if (examples_.empty()) throw std::invalid_argument("fine-tuning needs at least one training example");
}

TrainingStepReport Trainer::step() {
    TrainingStepReport report;
    report.step = stepsDone() + 1;
    report.lr = learningRate(recipe_, stepsDone());
    grads_.zero();
    // The generator moves on only when the step completes: a step stopped halfway (Ctrl-C) is
    // done again, with the same windows, by the run resumed from the checkpoint.
    std::mt19937_64 windows = windows_;
    std::vector<TrainingWindow> batch;
    for (int b = 0; b < recipe_.batch; ++b) {
        if (!examples_.empty()) {
            batch.push_back(examples_[size_t(windows() % examples_.size())]);
            continue;
        }
        const auto start = train_.begin() + int64_t(windows() % (train_.size() - size_t(recipe_.seqLen) - 1));
        batch.push_back({std::vector<int32_t>(start, start + recipe_.seqLen), std::vector<int32_t>(start + 1, start + recipe_.seqLen + 1)});
    }
    for (const TrainingWindow& w : batch) report.tokens += int64_t(w.inputs.size());
    ctx_.step = report.step;
    // One scope a step: the weights are rounded to BF16 once for the step's windows.
    std::optional<ml::BF16Products> bf16;
    if (recipe_.bf16Products) bf16.emplace();
    auto trainOnWindows = [&] { return trainOnBatch(transformer_, ctx_, tape_, batch, grads_); };
    report.loss = trainOnWindows();
    report.gradientNorm = clipGradientNorm(grads_, recipe_.clip);
    if (!std::isfinite(report.loss) || !std::isfinite(report.gradientNorm)) {
        // The same windows again, watched: the first forward or backward stage that went non-finite
        // is named (the weights are not updated either way).
        NonFiniteWatch watch;
        {
            const auto watched = ctx_.observedOnlyBy({&tape_, &watch});  // the backward pass reads the tape
            grads_.zero();
            trainOnWindows();
        }
        throw std::runtime_error(fmt::format("step {}: the loss ({}) or the gradient norm ({}) is not finite; the weights were not updated (learning rate {})",
                                             report.step, report.loss, report.gradientNorm, report.lr));
    }
    adamw_.step(grads_, report.lr);
    windows_ = windows;
    return report;
}

double Trainer::heldoutLoss() const {
    InferenceContext ctx(withContext(model_.args, recipe_.seqLen));
    std::optional<ml::BF16Products> bf16;  // as train.py's heldout_loss, under the training's precision
    if (recipe_.bf16Products) bf16.emplace();
    double total = 0;
    int64_t scored = 0;
    for (const TrainingWindow& w : heldout_) {
        const ml::CrossEntropyResult ce = ml::CrossEntropy(transformer_.Forward(ctx, Tensor::fromInt32(w.inputs), 0), Tensor::fromInt32(w.targets));
        total += ce.loss * double(ce.scored);
        scored += ce.scored;
    }
    return scored ? total / double(scored) : NAN;
}

}  // namespace llama
