#pragma once
// `train --trace FILE`: windows of one training step recorded as traces (the forward pass, the
// loss and the backward pass), which the viewer, `export-html` and `diff` open as they open any
// run. `--trace-at STEP:WINDOWS` picks the step and its windows (the run's first step's first
// window by default); the other windows, and other steps, are the same stages with other numbers.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "model/model.h"
#include "stages/stage_event.h"
#include "trace/trace_recorder.h"
#include "train/training_recipe.h"

namespace llama::cli {

// Which windows of which step: windows [first, last], from 0 (as META's "window").
struct TracedWindows {
    int step = 0;  // from 1; 0: the run's first step
    int first = 0, last = 0;
};

// "STEP:W", "STEP:A-B" or "STEP:all", windows typed from 1 as the viewer counts them; throws std::invalid_argument naming the
// part that is wrong. The step is checked against the run later (checkTracedWindows).
TracedWindows parseTracedWindows(const std::string& text, int batch);
// Refuses a step the run does not do (before `firstStep` or after the recipe's last) or a window
// past the step's batch, naming it.
void checkTracedWindows(const TracedWindows& w, int firstStep, const TrainingRecipe& recipe);

class TrainingTrace : public StageObserver {
public:
    // path: the file of one window; with several, each window's is path with ".windowN" (from 1)
    // before its extension (scratch/t.trace -> scratch/t.window1.trace).
    TrainingTrace(std::string path, const Model& model, const TrainingRecipe& recipe, TracedWindows windows);
    StageReads reads(StageId stage, int layer) const override;
    void onStage(const StageEvent& event) override;
    // Whether every window was recorded whole and its file written (each printed once).
    bool done() const { return done_; }
    std::string pathOf(int window) const;

private:
    std::string path_;
    const Model& model_;
    TrainingRecipe recipe_;
    TracedWindows windows_;
    int window_ = -1;  // the traced step's window under way, from 0
    std::unique_ptr<TraceRecorder> recorder_;  // made at a traced window's first stage, which names its tokens
    std::vector<int32_t> tokens_;
    std::chrono::steady_clock::time_point start_;
    bool done_ = false;
};

}  // namespace llama::cli
