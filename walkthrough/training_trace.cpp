#include "training_trace.h"

#include <fmt/format.h>

namespace llama::cli {

TrainingTrace::TrainingTrace(std::string path, const Model& model, int windows, float learningRate)
    : path_(std::move(path)), model_(model), windows_(windows), learningRate_(learningRate) {}

StageReads TrainingTrace::reads(StageId stage, int layer) const {
    if (done_) return StageReads::Handles;
    // Before the window's first stage the recorder does not exist yet: the most it may ask.
    return recorder_ ? recorder_->reads(stage, layer) : StageReads::Values;
}

void TrainingTrace::onStage(const StageEvent& event) {
    if (done_) return;
    if (!recorder_) {
        // The forward pass starts at the embedding rows of the window's tokens.
        const Tensor* tokens = event.stage == StageId::InputEmbeddings ? event.tensorField("inputTokens") : nullptr;
        if (!tokens) return;
        for (int64_t i = 0; i < tokens->numel(); ++i) window_.push_back(tokens->data<int32_t>()[i]);
        TraceRunInfo run;
        run.prompt = model_.tokenizer->decode(window_);
        run.training = TraceTrainingInfo{event.step, 0, windows_, learningRate_};
        recorder_ = std::make_unique<TraceRecorder>(path_, model_, run, TraceOptions{});
        start_ = std::chrono::steady_clock::now();
    }
    recorder_->onStage(event);
    // The embedding's gradient is the backward pass's last stage.
    if (event.stage == StageId::InputEmbeddingsBackward) {
        recorder_->finishTraining(window_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
        done_ = true;
        fmt::print("Trace of step {}'s first window written to {} ({:.2f} MB)\n", event.step, path_, double(recorder_->bytesWritten()) / 1e6);
    }
}

}  // namespace llama::cli
