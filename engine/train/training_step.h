#pragma once
// One window of training text through the model and back: the forward pass the walkthrough
// shows (watched by a ForwardTape), the cross-entropy of each next token, and the backward pass
// that adds every weight's gradient.
#include <vector>

#include "model/inference_context.h"
#include "model/llama_transformer.h"
#include "model/forward_tape.h"
#include "model/gradients.h"

namespace llama {

struct WindowLoss {
    double loss = 0;      // mean cross-entropy of the scored tokens, nats
    int64_t scored = 0;   // tokens scored (targets not -1)
};

// window: T + 1 token ids, the inputs window[0..T) and their next tokens window[1..T+1); a target
// of -1 is not scored (a prompt's tokens in fine-tuning). The loss's gradient is scaled by
// `lossWeight` (1 / the windows of a batch, so that the batch's loss is their mean). ctx must
// hold at least T positions and have `tape` among its observers.
WindowLoss trainOnWindow(const LlamaTransformer& transformer, InferenceContext& ctx, const ForwardTape& tape,
                         const std::vector<int32_t>& inputs, const std::vector<int32_t>& targets, float lossWeight, Gradients& grads);

// A window of training: tokens and the next token of each (-1: not scored).
struct TrainingWindow {
    std::vector<int32_t> inputs, targets;
};

// One step's windows, each through trainOnWindow with a loss weight of the tokens it scores over
// those of all the windows: the batch's loss is the mean over every scored token (as PyTorch's
// cross_entropy with ignore_index over the whole batch) and the gradients are that mean's. With
// every token scored, as in pretraining, each window weighs 1 / the windows. Returns that mean.
double trainOnBatch(const LlamaTransformer& transformer, InferenceContext& ctx, const ForwardTape& tape, const std::vector<TrainingWindow>& windows,
                    Gradients& grads);

}  // namespace llama
