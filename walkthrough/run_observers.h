#pragma once
// What watches a generation besides the debug log: --trace records it to a file, --step holds
// it after each stage for the terminal stepper. Owns those observers for the run's lifetime.
#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <optional>

#include "options.h"
#include "lens_view.h"
#include "stepper.h"
#include "trace/trace_recorder.h"

namespace llama::cli {

// --dry-run, --step, --trace, the --trace-* caps and --html.
void addRunObserverOptions(CLI::App& app, Options& options);

// Where the trace goes: --trace, or beside the --html page (run.html -> run.trace); "" for none.
std::string tracePathOf(const Options& options);

class RunObservers {
public:
    // Attaches the recorder first, so a stage is on disk before the stepper holds it. `batch`:
    // the run is a batch of sequences (`batch`), recorded with its prompts and settings.
    RunObservers(const Options& options, Session& session, const std::optional<TraceBatchInfo>& batch = {});
    // Ends the trace with the result (and writes the page of --html unless the run was
    // interrupted; `cancelled` stops the page midway) and says where they went.
    void finish(const GenerationResult& result, const std::function<bool()>& cancelled = {});
    // Ends a batch's trace with each sequence's tokens and text (no page: export-html makes it).
    void finishBatch(const ParallelResult& result);

private:
    const Options& options_;
    std::optional<TraceBatchInfo> batch_;
    std::string tracePath_;  // --trace, or beside the --html page
    LogitLens lens_;
    std::unique_ptr<TraceRecorder> recorder_;
    std::unique_ptr<PositionTokens> tokens_;
    std::unique_ptr<StepController> controller_;
    std::unique_ptr<TerminalStepper> stepper_;
    std::unique_ptr<LensCollector> lensCollector_;
};

}  // namespace llama::cli
