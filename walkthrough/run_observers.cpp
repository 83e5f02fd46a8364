#include "run_observers.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "export_html_command.h"
#include "options/checked_option.h"
#include "page/run_page.h"

namespace llama::cli {

void addRunObserverOptions(CLI::App& app, Options& o) {
    app.add_flag("--dry-run", o.dryRun, "Shapes and dtypes only, no arithmetic (weights are not read): e.g. Llama 3.1 8B's shapes in a second");
    app.add_flag("--step", o.step, "Pause after every stage; commands on stdin (h for help, end of input continues)");
    auto* trace = app.add_option("--trace", o.trace, "Record the run to FILE for replay (docs/trace-format.md)");
    app.add_option("--html", o.html, "Write the run's web page to FILE (one self-contained file; its trace beside it unless --trace is given)");
    app.add_option("--trace-attention", o.traceAttention, "Layers whose attention scores the trace stores: all, none or e.g. 1,3-5")
        ->needs(trace);
    app.add_flag("--trace-presoftmax", o.tracePreSoftmax, "Also store the masked scores before the softmax and the xq and keys they come from (a cell's arithmetic in a replay)")->needs(trace);
    options::addInteger(app, "--trace-max-positions", o.traceMaxPositions,
                        {0, ModelArgs::kMaxPositions, fmt::format("a position count from 0 to {}", ModelArgs::kMaxPositions)},
                        "Store no scores for steps past this many positions")
        ->needs(trace);
    options::addInteger(app, "--trace-top-k", o.traceTopK, {0, ModelArgs::kMaxVocab, fmt::format("a token count from 0 to {}", ModelArgs::kMaxVocab)},
                        "Most likely tokens recorded at each step")
        ->needs(trace);
    options::addInteger(app, "--trace-lens-top-k", o.traceLensTopK, {0, 100, "a token count from 0 (none) to 100"},
                        "Logit lens: top tokens per position after every layer (0: none)")
        ->needs(trace);
    app.add_flag("--trace-no-residual", o.traceNoResidual, "Leave out the residual stream's values (diff then compares it by summaries)")
        ->needs(trace);
}

std::string tracePathOf(const Options& o) {
    if (!o.trace.empty() || o.html.empty()) return o.trace;
    const std::filesystem::path p(o.html);
    return (p.parent_path() / p.stem()).string() + ".trace";
}

RunObservers::RunObservers(const Options& o, Session& session, const std::optional<TraceBatchInfo>& batch)
    : options_(o), batch_(batch), tracePath_(tracePathOf(o)), lens_(session.transformer()) {
    const Model& model = *session.model();
    if (!tracePath_.empty()) {
        TraceOptions t;
        t.attentionLayers = parseLayerSelection(o.traceAttention, model.args.n_layers);
        t.preSoftmax = o.tracePreSoftmax || !o.html.empty();  // the page shows each attention cell's arithmetic
        t.maxPositions = o.traceMaxPositions;
        t.topK = o.traceTopK;
        t.lensTopK = o.traceLensTopK;
        t.residual = !o.traceNoResidual;
        const GenerationSettings& g = o.generation;
        TraceRunInfo info{g.prompt, g.maxTokens, g.sampling, o.dryRun, g.whatIf, g.grammarSource, batch};
        if (batch) info.prompt = fmt::format("{}", fmt::join(batch->prompts, "\n"));
        recorder_ = std::make_unique<TraceRecorder>(tracePath_, model, info, t, &lens_);
        session.addObserver(recorder_.get());
    }
    if (o.step) {
        controller_ = std::make_unique<StepController>(StepController::Mode::Stage);
        tokens_ = std::make_unique<PositionTokens>(*model.tokenizer);
        stepper_ = std::make_unique<TerminalStepper>(*controller_, std::cin, std::cout, model.args.n_layers, !isatty(STDIN_FILENO),
                                                     tokens_.get());
        lensCollector_ = std::make_unique<LensCollector>(lens_, *model.tokenizer);
        stepper_->setLens([this](int k) { return lensCollector_->describe(k); });
        session.addObserver(lensCollector_.get());
        std::cout << "Stepping: the run pauses after each stage. h for help, Enter for the next stage.\n";
        session.addObserver(tokens_.get());  // before the controller: it knows a stage's tokens when the run pauses
        session.addObserver(controller_.get());
    }
}

void RunObservers::finishBatch(const ParallelResult& result) {
    if (!recorder_) return;
    recorder_->finishBatch(result, batch_ ? batch_->prompts : std::vector<std::string>{});
    fmt::print("Trace written to {} ({:.2f} MB)\n", tracePath_, recorder_->bytesWritten() / 1e6);
}

void RunObservers::finish(const GenerationResult& result, const std::function<bool()>& cancelled) {
    if (!recorder_) return;
    recorder_->finish(result);
    fmt::print("Trace written to {} ({:.2f} MB)\n", tracePath_, recorder_->bytesWritten() / 1e6);
    if (options_.html.empty()) return;
    const std::string later = fmt::format("`llama-walkthrough export-html {} --out {}` makes it from the trace", tracePath_, options_.html);
    if (result.stopReason == StopReason::Interrupted) {
        fmt::print("Interrupted: no page was written; {}\n", later);
        return;
    }
    std::string note;
    try {
        note = page::writeRunPage({.tracePath = tracePath_, .cancelled = cancelled}, options_.html);
    } catch (const page::ExportCancelled& e) {
        fmt::print("Interrupted while writing the page: no page was written; {}\n", later);
        return;
    }
    printPageWritten(options_.html);
    if (!note.empty()) fmt::print("{}\n", note);
}

}  // namespace llama::cli
