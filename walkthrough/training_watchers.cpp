#include "training_watchers.h"

#include <unistd.h>

#include <iostream>

namespace llama::cli {

TrainingWatchers::TrainingWatchers(const TrainOptions& o, const Model& model, Trainer& trainer) : firstStep_(trainer.stepsDone() + 1) {
    InferenceContext& ctx = trainer.context();
    if (!o.traceAt.empty() && o.trace.empty()) throw std::invalid_argument("--trace-at picks what --trace FILE records; give --trace too");
    TracedWindows windows{firstStep_, 0, 0};
    if (!o.traceAt.empty()) windows = parseTracedWindows(o.traceAt, o.recipe.batch);
    checkTracedWindows(windows, firstStep_, o.recipe);  // before any file is made
    if (!o.debugLog.empty()) {
        debugLog_ = std::make_unique<DebugLogObserver>(o.debugLog);
        firstStepLog_ = std::make_unique<OneStepOnly>(*debugLog_, firstStep_);
        ctx.addObserver(firstStepLog_.get());
    }
    if (!o.trace.empty()) {
        trace_ = std::make_unique<TrainingTrace>(o.trace, model, o.recipe, windows);
        ctx.addObserver(trace_.get());
    }
    if (o.step) {
        stepper_ = std::make_unique<TerminalStepper>(controller_, std::cin, std::cout, model.args.n_layers, !isatty(STDIN_FILENO));
        firstStepStepper_ = std::make_unique<OneStepOnly>(controller_, firstStep_);
        ctx.addObserver(firstStepStepper_.get());
    }
}

void TrainingWatchers::stepDone(int step) {
    if (debugLog_ && step == firstStep_) debugLog_->finish();
}

}  // namespace llama::cli
