// llama-walkthrough: runs a Llama model step by step, logging every stage in the
// walkthrough's words. `llama-walkthrough bench` measures its speed.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "batch_command.h"
#include "bench_command.h"
#include "compare_doc_command.h"
#include "convert_command.h"
#include "cvector_command.h"
#include "diff_command.h"
#include "export_html_command.h"
#include "io/atomic_output.h"
#include "inspect_command.h"
#include "interrupt.h"
#include "ml/thread_pool.h"
#include "model_source_options.h"
#include "model_summary.h"
#include "options/checked_option.h"
#include "options/bundled_path.h"
#include "options/run_options.h"
#include "patch_command.h"
#include "perplexity_command.h"
#include "run_observers.h"
#include "tokenize_command.h"
#include "tokenizer_train_command.h"
#include "train_command.h"
#include "tensor/heap_policy.h"
#include "trace/debug_log_observer.h"
#include "no_kv_cache_report.h"
#include "option_scope.h"

using namespace llama;

namespace {

int runGeneration(const cli::Options& o) {
    // Outputs are checked before anything is loaded or run.
    const std::vector<std::string> inputs = {o.synthetic.empty() ? o.model : std::string(), o.tokenizer};
    const std::string trace = cli::tracePathOf(o);
    if (!o.debugLog.empty()) checkOutputPath("--debug-log", o.debugLog, inputs, {trace, o.html});
    if (!trace.empty()) checkOutputPath(o.trace.empty() ? "--html's trace (beside the page)" : "--trace", trace, inputs, {o.debugLog, o.html});
    if (!o.html.empty()) checkOutputPath("--html", o.html, inputs, {o.debugLog, trace});
    Session session;
    cli::InterruptHandling interrupts(session);
    session.load(cli::selectedSource(o), cli::loadOptions(o, o.dryRun));
    if (interrupts.stopReason() == StopReason::Interrupted) {
        fmt::print(stderr, "interrupted while loading the model: nothing was run\n");
        return 130;  // as a shell reports a Ctrl-C
    }
    const Model& model = *session.model();
    if (!o.quiet) cli::printModelSummary(model);
    session.settings() = o.generation;
    std::unique_ptr<DebugLogObserver> debugLog;
    if (!o.debugLog.empty()) {
        debugLog = std::make_unique<DebugLogObserver>(o.debugLog);
        session.addObserver(debugLog.get());
    }
    const GenerationSettings& g = o.generation;
    g.whatIf.validate(model.args.n_layers, model.args.n_heads);
    if (g.whatIf.any()) {
        const std::string note = "What-if experiment, not the model's own computation: " + g.whatIf.describe();
        if (debugLog) debugLog->line(note);
        fmt::print("{}\n", note);  // even with -q: an experiment's output must not pass for the model's
    }
    StepLogits stepLogits;
    if (g.whatIf.noKvCache) session.addObserver(&stepLogits);
    cli::RunObservers runObservers(o, session);
    if (!o.quiet) interrupts.writeOut("\n" + (g.mode == PromptMode::Completion ? g.system + g.prompt : std::string()));
    GenerationResult r = session.run([&](const std::string& piece) { interrupts.writeOut(piece); });
    // A stop we asked for (Ctrl-C, a closed stdout) says which; the stepper's q stays "stopped".
    if (const StopReason why = interrupts.stopReason(); r.stopReason == StopReason::Stopped && why != StopReason::Running) r.stopReason = why;
    interrupts.writeOut("\n\n");
    runObservers.finish(r, [&] { return interrupts.stopReason() == StopReason::Interrupted; });
    if (debugLog) debugLog->finish();
    if (interrupts.stdoutClosed()) {
        // Nobody reads the summary any more; the files are complete, and stderr says so.
        fmt::print(stderr, "stdout was closed: stopped with {} tokens generated{}\n", r.generatedTokens.size(),
                   debugLog ? "; the debug log is complete" : "");
        return 0;
    }
    if (o.dryRun) fmt::print("Dry run: shapes only; the generated tokens are fixed stand-ins.\n");
    double prefillTps = r.prefillSeconds > 0 ? r.promptTokens.size() / r.prefillSeconds : 0;
    double decodeTps = r.decodeSeconds > 0 ? r.decodeSteps / r.decodeSeconds : 0;
    fmt::print("Prompt tokens: {} | generated tokens: {} | prefill: {:.1f} tok/s | decode: {:.1f} tok/s | stopped by: {}\n",
               r.promptTokens.size(), r.generatedTokens.size(), prefillTps, decodeTps, describe(r.stopReason));
    if (r.speculative)
        // The prompt's pass gives the first token, each checking pass the rest: both are target passes.
        fmt::print("Speculative decoding: {} target passes checked {} drafted tokens, {} accepted ({:.1f}%); {} tokens from {} target passes "
                   "(the prompt's included), {:.2f} per pass\n",
                   r.speculative->rounds, r.speculative->drafted, r.speculative->accepted, 100 * r.speculative->acceptanceRate(),
                   r.generatedTokens.size(), r.speculative->rounds + 1, double(r.generatedTokens.size()) / (r.speculative->rounds + 1));
    if (r.stopReason == StopReason::ContextFull)
        fmt::print("The context length ({} positions) is full: start again with a shorter prompt or a larger --max-seq-len.\n",
                   model.args.max_seq_len);
    if (debugLog) fmt::print("Debug log written to {}\n", o.debugLog);
    if (g.whatIf.noKvCache && !o.dryRun && r.stopReason != StopReason::Stopped) cli::reportKvCacheExperiment(session, r, stepLogits);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    keepTensorBlocksInHeap();
    CLI::App app{"llama-walkthrough: Llama inference you can read, step by step"};
    app.set_version_flag("--version", "llama-walkthrough 0.1");
    cli::Options o;
    o.model = options::bundledPath("assets/model");
    cli::addModelOptions(app, o);
    options::addGenerationOptions(app, o.generation);
    app.add_option("--debug-log", o.debugLog, "Write every stage in the walkthrough's log format to FILE");
    app.add_flag("-q,--quiet", o.quiet, "Print only the generated text and the summary");
    o.generation.warmUp = true;
    app.add_flag("--no-warmup{false}", o.generation.warmUp, "Skip the untimed pass over two tokens that warms caches before the prompt's timed one (as llama-cli's)");
    cli::addRunObserverOptions(app, o);
    options::addWhatIfOptions(app, o.generation.whatIf);
    const std::string speculative = "Speculative decoding (greedy)";
    auto* draftModel = app.add_option("--draft-model", o.generation.draftModel,
                                      "A smaller model with the same vocabulary drafts tokens; the model checks them in one batched pass")
                           ->group(speculative);
    options::addInteger(app, "--draft-layers", o.generation.draftLayers, {1, ModelArgs::kMaxLayers, "a layer count"},
                        "Self-speculation: the model's first N layers (with its final norm and output) draft tokens")
        ->excludes(draftModel)
        ->group(speculative);
    options::addInteger(app, "--draft-max", o.generation.draftMax, {1, 64, "a token count from 1 to 64"}, "Tokens drafted per check (default 8)")
        ->group(speculative);
    options::addUbatchOption(app, o.generation.nUbatch);

    // Every subcommand registers the same way: its options into its own struct, and how it runs.
    cli::BatchOptions batchOptions;
    batchOptions.run.model = o.model;
    cli::CompareDocOptions compareDocOptions;
    cli::ConvertOptions convertOptions;
    cli::InspectOptions inspectOptions{.model = o.model};
    cli::DiffOptions diffOptions;
    cli::ExportHtmlOptions exportHtmlOptions;
    cli::TokenizeOptions tokenizeOptions{.model = o.model};
    cli::TokenizerTrainOptions tokenizerTrainOptions;
    cli::TrainOptions trainOptions;
    cli::PerplexityOptions perplexityOptions;
    perplexityOptions.model = o.model;
    cli::CvectorOptions cvectorOptions;
    cvectorOptions.model = o.model;
    cli::PatchOptions patchOptions;
    patchOptions.model = o.model;
    const std::vector<std::pair<CLI::App*, std::function<int()>>> subcommands = {
        {cli::addBatchCommand(app, batchOptions), [&] { return cli::runBatch(batchOptions); }},
        {cli::addBenchCommand(app, o), [&] { return cli::runBench(o); }},
        {cli::addCompareDocCommand(app, compareDocOptions), [&] { return cli::runCompareDoc(compareDocOptions); }},
        {cli::addConvertCommand(app, convertOptions), [&] { return cli::runConvert(convertOptions); }},
        {cli::addInspectCommand(app, inspectOptions), [&] { return cli::runInspect(inspectOptions); }},
        {cli::addDiffCommand(app, diffOptions), [&] { return cli::runDiff(diffOptions); }},
        {cli::addExportHtmlCommand(app, exportHtmlOptions), [&] { return cli::runExportHtml(exportHtmlOptions); }},
        {cli::addTokenizeCommand(app, tokenizeOptions), [&] { return cli::runTokenize(tokenizeOptions); }},
        {cli::addTokenizerTrainCommand(app, tokenizerTrainOptions), [&] { return cli::runTokenizerTrain(tokenizerTrainOptions); }},
        {cli::addTrainCommand(app, trainOptions), [&] { return cli::runTrain(trainOptions); }},
        {cli::addPerplexityCommand(app, perplexityOptions), [&] { return cli::runPerplexity(perplexityOptions); }},
        {cli::addCvectorCommand(app, cvectorOptions), [&] { return cli::runCvector(cvectorOptions); }},
        {cli::addPatchCommand(app, patchOptions), [&] { return cli::runPatch(patchOptions); }},
    };

    if (auto code = options::parseCommandLine(app, argc, argv)) return *code;
    try {
        cli::requireOptionsApply(app);
        // batch's own --threads, else the main command's (which the table lets reach a subcommand).
        if (const int threads = batchOptions.run.threads > 0 ? batchOptions.run.threads : o.threads; threads > 0)
            ml::ThreadPool::configureGlobal(threads);
        for (const auto& [command, run] : subcommands)
            if (*command) return run();
        return runGeneration(o);
    } catch (const std::exception& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return 1;
    }
}
