#include "training_trace.h"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

namespace llama::cli {

namespace {

int parseCount(const std::string& text, const std::string& what, const std::string& whole) {
    size_t used = 0;
    int n = -1;
    try {
        n = std::stoi(text, &used);
    } catch (const std::exception&) {
    }
    if (text.empty() || used != text.size() || n < 0)
        throw std::invalid_argument(fmt::format("--trace-at: '{}' is not a {} in '{}' (STEP:WINDOW, STEP:FIRST-LAST or STEP:all)", text, what, whole));
    return n;
}

}  // namespace

TracedWindows parseTracedWindows(const std::string& text, int batch) {
    const size_t colon = text.find(':');
    if (colon == std::string::npos)
        throw std::invalid_argument(fmt::format("--trace-at: '{}' has no ':' (STEP:WINDOW, STEP:FIRST-LAST or STEP:all; windows from 1)", text));
    TracedWindows w;
    w.step = parseCount(text.substr(0, colon), "step number", text);
    if (w.step == 0) throw std::invalid_argument(fmt::format("--trace-at: steps count from 1, got step 0 in '{}'", text));
    const std::string windows = text.substr(colon + 1);
    // Typed from 1, as the viewer's heading counts them ("window 1 of 2"); held from 0, as META's.
    if (windows == "all") {
        w.first = 1, w.last = batch;
    } else if (const size_t dash = windows.find('-'); dash != std::string::npos) {
        w.first = parseCount(windows.substr(0, dash), "window number", text);
        w.last = parseCount(windows.substr(dash + 1), "window number", text);
        if (w.last < w.first) throw std::invalid_argument(fmt::format("--trace-at: windows {} to {} in '{}' run backwards", w.first, w.last, text));
    } else {
        w.first = w.last = parseCount(windows, "window number", text);
    }
    if (w.first == 0) throw std::invalid_argument(fmt::format("--trace-at: windows count from 1, got window 0 in '{}'", text));
    if (w.last > batch)
        throw std::invalid_argument(fmt::format("--trace-at: window {} of '{}' is out of range: a step has --batch {} windows, 1 to {}", w.last, text, batch, batch));
    --w.first, --w.last;
    return w;
}

void checkTracedWindows(const TracedWindows& w, int firstStep, const TrainingRecipe& recipe) {
    if (w.step < firstStep || w.step > recipe.steps)
        throw std::invalid_argument(fmt::format("--trace-at: step {} is out of range: this run does steps {} to {} (--steps {})", w.step, firstStep,
                                                recipe.steps, recipe.steps));
}

TrainingTrace::TrainingTrace(std::string path, const Model& model, const TrainingRecipe& recipe, TracedWindows windows)
    : path_(std::move(path)), model_(model), recipe_(recipe), windows_(windows) {}

std::string TrainingTrace::pathOf(int window) const {
    if (windows_.first == windows_.last) return path_;
    const std::filesystem::path p(path_);
    return (p.parent_path() / fmt::format("{}.window{}{}", p.stem().string(), window + 1, p.extension().string())).string();
}

StageReads TrainingTrace::reads(StageId stage, int layer) const {
    if (recorder_) return recorder_->reads(stage, layer);
    // Between traced windows: only a window's first stage, whose tokens start a recording.
    return !done_ && stage == StageId::InputEmbeddings ? StageReads::Values : StageReads::Handles;
}

void TrainingTrace::onStage(const StageEvent& event) {
    if (done_ || event.step != windows_.step) return;
    if (!recorder_) {
        // Each window's forward pass starts at the embedding rows of its tokens.
        const Tensor* tokens = event.stage == StageId::InputEmbeddings ? event.tensorField("inputTokens") : nullptr;
        if (!tokens) return;
        if (++window_ < windows_.first) return;
        tokens_.assign(tokens->data<int32_t>(), tokens->data<int32_t>() + tokens->numel());
        TraceRunInfo run;
        run.prompt = model_.tokenizer->decode(tokens_);
        run.training = TraceTrainingInfo{event.step, window_, recipe_.batch, learningRate(recipe_, event.step - 1)};
        recorder_ = std::make_unique<TraceRecorder>(pathOf(window_), model_, run, TraceOptions{});
        start_ = std::chrono::steady_clock::now();
    }
    recorder_->onStage(event);
    // The embedding's gradient is the backward pass's last stage.
    if (event.stage == StageId::InputEmbeddingsBackward) {
        recorder_->finishTraining(tokens_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
        fmt::print("Trace of step {}'s window {} of {} written to {} ({:.2f} MB)\n", event.step, window_ + 1, recipe_.batch, pathOf(window_),
                   double(recorder_->bytesWritten()) / 1e6);
        recorder_.reset();
        done_ = window_ == windows_.last;
    }
}

}  // namespace llama::cli
