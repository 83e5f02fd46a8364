#pragma once
// `train --trace FILE`: the first window of the run's first step recorded as a trace (the forward
// pass, the loss and the backward pass), which the viewer, `export-html` and `diff` open as they
// open any run. The other windows, and later steps, are the same stages with other numbers.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "model/model.h"
#include "stages/stage_event.h"
#include "trace/trace_recorder.h"

namespace llama::cli {

class TrainingTrace : public StageObserver {
public:
    // `windows` and `learningRate`: the step's, for META's "training".
    TrainingTrace(std::string path, const Model& model, int windows, float learningRate);
    StageReads reads(StageId stage, int layer) const override;
    void onStage(const StageEvent& event) override;
    // Whether the window was recorded whole and the file written; prints where it went once.
    bool done() const { return done_; }

private:
    std::string path_;
    const Model& model_;
    int windows_;
    float learningRate_;
    std::unique_ptr<TraceRecorder> recorder_;  // made at the window's first stage, which names its tokens
    std::vector<int32_t> window_;
    std::chrono::steady_clock::time_point start_;
    bool done_ = false;
};

}  // namespace llama::cli
