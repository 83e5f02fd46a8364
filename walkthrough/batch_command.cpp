#include "batch_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "batch_report.h"
#include "interrupt.h"
#include "session/prompts_file.h"
#include "model_source_options.h"
#include "model_summary.h"
#include "options/checked_option.h"
#include "options/run_options.h"
#include "run_observers.h"
#include "trace/debug_log_observer.h"

namespace llama::cli {

CLI::App* addBatchCommand(CLI::App& app, BatchOptions& b) {
    CLI::App* batch = app.add_subcommand("batch", "Decode many prompts together, as llama.cpp batches sequences (KV cells, continuous batching)");
    addModelOptions(*batch, b.run);
    auto* prompt = options::addBatchOptions(*batch, b.batch, b.run.generation);
    batch->add_option("--prompts-file", b.promptsFile, "A file of prompts, one per line")->excludes(prompt);
    batch->add_option("--debug-log", b.run.debugLog, "Write every stage in the walkthrough's log format to FILE");
    batch->add_option("--trace", b.run.trace,
                      "Record the batch to FILE for the viewer and export-html: each ubatch as a table, the KV cells, the mask, context "
                      "shifts, each sequence's tokens (docs/trace-format.md)");
    batch->add_flag("--step", b.run.step, "Pause after every stage, as a single run's --step does (commands on stdin)");
    batch->add_flag("-q,--quiet", b.run.quiet, "No model summary");
    return batch;
}

int runBatch(const BatchOptions& b) {
    const Options& o = b.run;
    options::BatchSettings settings = b.batch;
    if (!b.promptsFile.empty()) settings.prompts = readPromptsFile(b.promptsFile);
    options::checkBatch(settings);
    const std::vector<std::string>& prompts = settings.prompts;
    if (!o.debugLog.empty()) checkOutputPath("--debug-log", o.debugLog, {o.model, b.promptsFile}, {o.trace});
    if (!o.trace.empty()) checkOutputPath("--trace", o.trace, {o.model, b.promptsFile}, {o.debugLog});
    Session session;
    InterruptHandling interrupts(session);
    session.load(selectedSource(o), loadOptions(o, false));
    if (!o.quiet) printModelSummary(*session.model());
    session.settings() = o.generation;
    std::unique_ptr<DebugLogObserver> debugLog;
    if (!o.debugLog.empty()) {
        debugLog = std::make_unique<DebugLogObserver>(o.debugLog);
        session.addObserver(debugLog.get());
    }
    RunObservers observers(o, session, TraceBatchInfo{prompts, settings.parallel, settings.ubatch, settings.contextShift, settings.keep});  // --trace, --step
    ParallelSettings parallel{.nParallel = settings.parallel, .nUbatch = settings.ubatch, .contextShift = settings.contextShift, .nKeep = settings.keep};
    const ParallelResult r = session.runParallel(prompts, parallel);
    if (debugLog) debugLog->finish();
    observers.finishBatch(r);

    fmt::print("{}", batchReport(prompts, o.generation, settings.parallel, r, session.model()->args.max_seq_len));
    if (debugLog) fmt::print("Debug log written to {}\n", o.debugLog);
    return 0;
}

}  // namespace llama::cli
