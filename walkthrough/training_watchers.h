#pragma once
// train's ways of watching a run, for training from scratch and LoRA fine-tuning alike:
// --debug-log and --step watch the run's first step, --trace records the windows --trace-at picks.
#include <memory>

#include "stages/step_controller.h"
#include "stepper.h"
#include "trace/debug_log_observer.h"
#include "train/trainer.h"
#include "train_command.h"
#include "training_trace.h"

namespace llama::cli {

// Passes on the stages of one step only: a step is `batch` windows, each a forward and a
// backward pass, thousands of lines; later steps are the same stages with other numbers.
class OneStepOnly : public StageObserver {
public:
    OneStepOnly(StageObserver& inner, int step) : inner_(inner), step_(step) {}
    StageReads reads(StageId stage, int layer) const override { return inner_.reads(stage, layer); }
    void onStage(const StageEvent& event) override {
        if (event.step == step_) inner_.onStage(event);
    }

private:
    StageObserver& inner_;
    int step_;
};

class TrainingWatchers {
public:
    // Attaches what the options ask for to the trainer's context; the run's first step is the one
    // after trainer.stepsDone(). Throws when --trace-at names a step or window the run does not do.
    TrainingWatchers(const TrainOptions& o, const Model& model, Trainer& trainer);
    // After each step: the debug log is whole after the first.
    void stepDone(int step);

private:
    int firstStep_;
    std::unique_ptr<DebugLogObserver> debugLog_;
    std::unique_ptr<OneStepOnly> firstStepLog_;
    std::unique_ptr<TrainingTrace> trace_;
    StepController controller_;
    std::unique_ptr<TerminalStepper> stepper_;
    std::unique_ptr<OneStepOnly> firstStepStepper_;
};

}  // namespace llama::cli
