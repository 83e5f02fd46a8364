#pragma once
// What watches a generation besides the debug log: --trace records it to a file, --step holds
// it after each stage for the terminal stepper. Owns those observers for the run's lifetime.
#include <CLI/CLI.hpp>

#include <memory>

#include "options.h"
#include "lens_view.h"
#include "stepper.h"
#include "trace/trace_recorder.h"

namespace llama::cli {

// --dry-run, --step, --trace and the --trace-* caps.
void addRunObserverOptions(CLI::App& app, Options& options);

class RunObservers {
public:
    // Attaches the recorder first, so a stage is on disk before the stepper holds it.
    RunObservers(const Options& options, Session& session);
    // Ends the trace with the result and says where it went.
    void finish(const GenerationResult& result);

private:
    const Options& options_;
    LogitLens lens_;
    std::unique_ptr<TraceRecorder> recorder_;
    std::unique_ptr<PositionTokens> tokens_;
    std::unique_ptr<StepController> controller_;
    std::unique_ptr<TerminalStepper> stepper_;
    std::unique_ptr<LensCollector> lensCollector_;
};

}  // namespace llama::cli
