#include "live_views.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <chrono>
#include <stdexcept>

#include "batch_report.h"
#include "generate/logit_lens.h"
#include "patch_table.h"
#include "patch_trace_output.h"
#include "tokenize_report.h"
#include "trace/trace_recorder.h"

namespace llama::web {

using nlohmann::json;

namespace {

std::atomic<bool> patchStop{false};

json runBatchCommand(const options::LiveBatchRequest& r, Session& session, const EnsureLoaded& ensureLoaded, const std::string& tracePath,
                     const Progress& progress) {
    ensureLoaded(r.model.source(r.seed), r.maxSeqLen);
    session.settings() = r.settings;
    session.clearObservers();
    const options::BatchSettings& b = r.batch;
    // Recorded as `batch --trace` records it, with each attention cell's arithmetic (as the live
    // page's runs and --html record it): the run page shows it.
    const LogitLens lens(session.transformer());
    TraceOptions t;
    t.preSoftmax = true;
    const GenerationSettings& g = r.settings;
    TraceRunInfo info{fmt::format("{}", fmt::join(b.prompts, "\n")), g.maxTokens, g.sampling, false, g.whatIf, g.grammarSource,
                      TraceBatchInfo{b.prompts, b.parallel, b.ubatch, b.contextShift, b.keep}, std::nullopt};
    TraceRecorder recorder(tracePath, *session.model(), info, t, &lens);
    session.addObserver(&recorder);
    progress(fmt::format("Decoding {} prompts, {} at a time…", b.prompts.size(), b.parallel));
    const ParallelResult result =
        session.runParallel(b.prompts, ParallelSettings{.nParallel = b.parallel, .nUbatch = b.ubatch, .contextShift = b.contextShift, .nKeep = b.keep});
    session.clearObservers();
    recorder.finishBatch(result, b.prompts);
    int64_t generated = 0;
    for (const SequenceResult& s : result.sequences) generated += int64_t(s.generatedTokens.size());
    return {{"ok", true},
            {"view", "batch"},
            {"recorded", true},
            {"report", cli::batchReport(b.prompts, g, b.parallel, result, session.model()->args.max_seq_len)},
            {"sequences", result.sequences.size()},
            {"generatedTokens", generated},
            {"passes", result.passes},
            {"seconds", result.seconds}};
}

json runPatchCommand(const options::LivePatchRequest& r, Session& session, const EnsureLoaded& ensureLoaded, const std::string& tracePath,
                     const Progress& progress) {
    // The CLI's patch reads --model as a directory or a file, with the model's own context.
    ensureLoaded(ModelSource{ModelSource::Kind::Files, r.model}, 0);
    const Model& model = *session.model();
    const PatchingSetup setup = r.patch.patchingSetup();
    patchStop = false;
    // Every pass is a line on the page, at most a few a second.
    auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    const auto started = std::chrono::steady_clock::now();
    const PatchingWatch watch{[&](int64_t done, int64_t total) {
                                  const auto now = std::chrono::steady_clock::now();
                                  if (done < total && now - last < std::chrono::milliseconds(250)) return;
                                  last = now;
                                  progress(fmt::format("patch: {} of {} forward passes", done, total));
                              },
                              &patchStop};
    PatchingResult result;
    try {
        result = runActivationPatching(model, setup, watch);
    } catch (const GenerationStopped&) {
        throw std::runtime_error("patch: stopped; nothing is shown (the grid comes only once every pass is done)");
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    progress("patch: recording the clean and corrupted runs for the heatmap…");
    try {
        cli::writePatchingTrace(tracePath, model, setup, result, &patchStop);
    } catch (const GenerationStopped&) {
        throw std::runtime_error("patch: stopped while recording the runs for the heatmap; nothing is shown");
    }
    return {{"ok", true},
            {"view", "patch"},
            {"recorded", true},
            {"report", cli::patchTable(result, *model.tokenizer, r.patch.site, setup.heads)},
            {"layers", result.patchedDiff.size()},
            {"columns", result.patchedDiff.at(0).size()},
            {"seconds", seconds}};
}

// Only the tokenizer is needed; the model the session holds, or the tokenizer's model loaded.
json runTokenizeCommand(const options::LiveTokenizeRequest& r, Session& session, const EnsureLoaded& ensureLoaded) {
    ensureLoaded(ModelSource{ModelSource::Kind::Files, r.model}, 0);
    std::string report;
    cli::appendTokenizeReport(report, *session.model()->tokenizer, r.tokenize.text, r.tokenize.word);
    return {{"ok", true}, {"view", "tokenize"}, {"report", report}};
}

}  // namespace

json runViewCommand(const options::LiveCommand& command, Session& session, const EnsureLoaded& ensureLoaded, const std::string& tracePath,
                    const Progress& progress) {
    if (const auto* b = std::get_if<options::LiveBatchRequest>(&command)) return runBatchCommand(*b, session, ensureLoaded, tracePath, progress);
    if (const auto* p = std::get_if<options::LivePatchRequest>(&command)) return runPatchCommand(*p, session, ensureLoaded, tracePath, progress);
    return runTokenizeCommand(std::get<options::LiveTokenizeRequest>(command), session, ensureLoaded);
}

void stopPatchCommand() { patchStop = true; }

}  // namespace llama::web
