#include "batch_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

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
    auto* prompt = batch->add_option("-p,--prompt", b.prompts, "A prompt; repeat for several sequences");
    batch->add_option("--prompts-file", b.promptsFile, "A file of prompts, one per line")->excludes(prompt);
    batch->add_option("--system", b.run.generation.system,
                      "Text before every prompt (chat mode: the system prompt); the tokens all prompts share are decoded once and "
                      "copied to each sequence (seq_cp)");
    batch->add_flag_callback("--chat", [&b] { b.run.generation.mode = PromptMode::Chat; }, "Use the model's instruct chat template");
    options::addSamplingOptions(*batch, b.run.generation);
    options::addInteger(*batch, "--parallel", b.parallel, {1, 256, "a number of sequences from 1 to 256"},
                        "Sequences decoded together (llama.cpp's -np); further prompts wait and join as others finish");
    options::addUbatchOption(*batch, b.ubatch);
    batch->add_flag("--context-shift", b.contextShift,
                    "When a sequence fills its share of the cells, free half of them after --keep and shift the rest back");
    options::addInteger(*batch, "--keep", b.keep, {0, ModelArgs::kMaxPositions, "a token count"},
                        "Positions a context shift keeps at each sequence's start (the shared prefix is always kept)");
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
    std::vector<std::string> prompts = b.promptsFile.empty() ? b.prompts : readPromptsFile(b.promptsFile);
    if (prompts.empty()) throw std::invalid_argument("batch: give prompts with -p (repeatable) or --prompts-file");
    if (b.keep > 0 && !b.contextShift) throw std::invalid_argument("--keep applies to --context-shift: give both or neither");
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
    RunObservers observers(o, session, TraceBatchInfo{prompts, b.parallel, b.ubatch, b.contextShift, b.keep});  // --trace, --step
    ParallelSettings parallel{.nParallel = b.parallel, .nUbatch = b.ubatch, .contextShift = b.contextShift, .nKeep = b.keep};
    const ParallelResult r = session.runParallel(prompts, parallel);
    if (debugLog) debugLog->finish();
    observers.finishBatch(r);

    for (size_t i = 0; i < r.sequences.size(); ++i) {
        const SequenceResult& s = r.sequences[i];
        fmt::print("\n[{}] {}{}\n", i + 1, o.generation.mode == PromptMode::Completion ? o.generation.system + prompts[i] : prompts[i], s.text);
    }
    fmt::print("\n{:>4}  {:>13}  {:>9}  {:>8}  {:>7}  {}\n", "seq", "prompt tokens", "generated", "tok/s", "shifts", "stopped by");
    int64_t generated = 0;
    for (size_t i = 0; i < r.sequences.size(); ++i) {
        const SequenceResult& s = r.sequences[i];
        const double secs = s.finishedAt - s.joinedAt;
        generated += int64_t(s.generatedTokens.size());
        fmt::print("{:>4}  {:>13}  {:>9}  {:>8.1f}  {:>7}  {}\n", i + 1, s.promptTokens.size(), s.generatedTokens.size(),
                   secs > 0 ? double(s.generatedTokens.size()) / secs : 0.0, s.contextShifts, describe(s.stopReason));
    }
    fmt::print("\nBatch: {} prompts, --parallel {} | shared prefix: {} token{}, stored once | {} positions per sequence | {} llama_decode "
               "calls\n",
               r.sequences.size(), b.parallel, r.sharedPrefixTokens, r.sharedPrefixTokens == 1 ? "" : "s", r.positionsPerSequence, r.passes);
    fmt::print("Tokens decoded: {} prompt + {} generated in {:.2f} s | generated tokens: {} | total: {:.1f} tok/s\n", r.promptTokensDecoded,
               r.generatedTokensDecoded, r.seconds, generated, r.seconds > 0 ? double(generated) / r.seconds : 0.0);
    fmt::print("KV cells: at most {} of {} used | {} written, {} of them into cells freed by finished sequences or a context shift\n",
               r.maxCellsUsed, session.model()->args.max_seq_len, r.cellsWritten, r.cellsReused);
    if (debugLog) fmt::print("Debug log written to {}\n", o.debugLog);
    return 0;
}

}  // namespace llama::cli
