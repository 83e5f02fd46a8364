#include "train/trainer.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "ml/backward_ops.h"
#include "stages/non_finite_watch.h"
#include "train/training_step.h"

namespace llama {

namespace {

ModelArgs withContext(ModelArgs args, int seqLen) {
    args.max_seq_len = seqLen;
    return args;
}

}  // namespace

Trainer::Trainer(Model& model, const TrainingRecipe& recipe, std::vector<int32_t> train, std::vector<int32_t> heldout)
    : model_(model),
      recipe_(recipe),
      train_(std::move(train)),
      heldout_(std::move(heldout)),
      transformer_(model_),
      ctx_(withContext(model_.args, recipe.seqLen)),
      tape_(model_.args.n_layers),
      grads_(model_),
      adamw_(grads_, {.weightDecay = recipe.weightDecay}),
      windows_(recipe.seed) {
    if (int64_t(train_.size()) < recipe.seqLen + 2)
        throw std::invalid_argument(fmt::format("the training text gives {} tokens, fewer than one window of --seq-len {} plus its next token and one more",
                                                train_.size(), recipe.seqLen));
    if (!heldout_.empty() && int64_t(heldout_.size()) < recipe.seqLen + 1)
        throw std::invalid_argument(fmt::format("the held-out text gives {} tokens, fewer than one window of --seq-len {} plus its next token",
                                                heldout_.size(), recipe.seqLen));
    ctx_.addObserver(&tape_);
}

TrainingStepReport Trainer::step() {
    TrainingStepReport report;
    report.step = stepsDone() + 1;
    report.lr = learningRate(recipe_, stepsDone());
    grads_.zero();
    // The generator moves on only when the step completes: a step stopped halfway (Ctrl-C) is
    // done again, with the same windows, by the run resumed from the checkpoint.
    std::mt19937_64 windows = windows_;
    const uint64_t span = train_.size() - size_t(recipe_.seqLen) - 1;
    std::vector<size_t> starts;
    for (int b = 0; b < recipe_.batch; ++b) starts.push_back(size_t(windows() % span));
    auto trainOnWindows = [&] {
        double loss = 0;
        for (const size_t start : starts) {
            const std::vector<int32_t> inputs(train_.begin() + int64_t(start), train_.begin() + int64_t(start) + recipe_.seqLen);
            const std::vector<int32_t> targets(train_.begin() + int64_t(start) + 1, train_.begin() + int64_t(start) + recipe_.seqLen + 1);
            ctx_.step = report.step;
            loss += trainOnWindow(transformer_, ctx_, tape_, inputs, targets, 1.0f / float(recipe_.batch), grads_).loss / recipe_.batch;
        }
        return loss;
    };
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
    const size_t T = size_t(recipe_.seqLen), windows = (heldout_.size() - 1) / T;
    double total = 0;
    int64_t scored = 0;
    for (size_t w = 0; w < windows; ++w) {
        const std::vector<int32_t> inputs(heldout_.begin() + int64_t(w * T), heldout_.begin() + int64_t((w + 1) * T));
        const std::vector<int32_t> targets(heldout_.begin() + int64_t(w * T + 1), heldout_.begin() + int64_t((w + 1) * T + 1));
        const ml::CrossEntropyResult ce = ml::CrossEntropy(transformer_.Forward(ctx, Tensor::fromInt32(inputs), 0), Tensor::fromInt32(targets));
        total += ce.loss * double(ce.scored);
        scored += ce.scored;
    }
    return scored ? total / double(scored) : NAN;
}

}  // namespace llama
