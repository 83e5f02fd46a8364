#include "train/training_step.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "ml/backward_ops.h"
#include "ml/ops.h"
#include "model/gradient_norms.h"

namespace llama {

namespace {

// Not std::ranges: the browser build's libc++ (Emscripten 3.1.6) has none of its algorithms.
int64_t scoredTokens(const TrainingWindow& w) { return std::count_if(w.targets.begin(), w.targets.end(), [](int32_t t) { return t >= 0; }); }

}  // namespace

WindowLoss trainOnWindow(const LlamaTransformer& transformer, InferenceContext& ctx, const ForwardTape& tape,
                         const std::vector<int32_t>& inputs, const std::vector<int32_t>& targets, float lossWeight, Gradients& grads) {
    if (inputs.empty() || inputs.size() != targets.size())
        throw std::invalid_argument(fmt::format("a training window needs as many targets as inputs, got {} and {}", targets.size(), inputs.size()));
    // The forward pass, from position 0: one prefill of the window, causal mask included.
    const Tensor logits = transformer.Forward(ctx, Tensor::fromInt32(inputs), 0);

    // The loss: how surprised the model is by each next token, and its gradient.
    const Tensor targetsTensor = Tensor::fromInt32(targets);
    ml::CrossEntropyResult result = ml::CrossEntropy(logits, targetsTensor);
    Tensor dLogits = lossWeight == 1.0f ? result.dLogits : ml::MultiplyElementwise(result.dLogits, ml::Full({1, 1}, DType::F32, lossWeight));
    {
        const auto here = ctx.at(-1, Position(0), Cell(0));
        ctx.stage(marks::Loss{.logits = logits, .targets = targetsTensor, .loss = [&] { return fmt::format("{:.4f}", result.loss); }, .dLogits = dLogits,
                              .norms = normsOf("dLogits", dLogits)});
    }
    transformer.Backward(ctx, tape, dLogits, grads);
    return {result.loss, result.scored};
}

double trainOnBatch(const LlamaTransformer& transformer, InferenceContext& ctx, const ForwardTape& tape, const std::vector<TrainingWindow>& windows,
                    Gradients& grads) {
    int64_t total = 0;
    for (const TrainingWindow& w : windows) total += scoredTokens(w);
    if (total == 0) throw std::invalid_argument("a training batch needs a scored token (a target other than -1)");
    double loss = 0;
    for (const TrainingWindow& w : windows) {
        const double weight = double(scoredTokens(w)) / double(total);
        if (weight > 0) loss += trainOnWindow(transformer, ctx, tape, w.inputs, w.targets, float(weight), grads).loss * weight;
    }
    return loss;
}

}  // namespace llama
