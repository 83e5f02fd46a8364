#include "bench_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "bench_parallel.h"
#include "bench_profile.h"
#include "llama_bench.h"
#include "median.h"
#include "ml/bandwidth_probe.h"
#include "ml/kernels/kernel_set.h"
#include "ml/op_profile.h"
#include "ml/task_launch.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"
#include "session/session.h"
#include "stages/non_finite_watch.h"
#include "model_summary.h"
#include "model_source_options.h"
#include "options/checked_option.h"
#include "trace/debug_log_observer.h"
#include "trace/trace_recorder.h"

namespace llama::cli {

namespace {
// Bytes a decode step streams: every weight once, except the embedding table, of which it reads one row.
size_t bytesPerDecodeToken(const Model& model) {
    size_t bytes = 0;
    for (const auto& [name, t] : model.tensors)
        bytes += name == "tok_embeddings.weight" ? t.byteSize() / size_t(t.dim(0)) : t.byteSize();
    return bytes;
}

// A fixed prompt of ordinary (non-special) token ids, the same every run.
std::vector<int32_t> benchPrompt(int length) {
    std::vector<int32_t> prompt;
    for (int i = 0; i < length; ++i) prompt.push_back(int32_t((i * 7919 + 13) % 256));
    return prompt;
}

// --observer: what watches every stage while we time. "none" must cost nothing; "record" is the
// trace recorder keeping only the stage flow (no tensor data), whose cost must stay small;
// "nonfinite" reads every value of every stage, the cost of not re-running a failed step instead.
std::unique_ptr<StageObserver> makeObserver(const std::string& kind, const Model& model) {
    if (kind == "record") return std::make_unique<TraceRecorder>("/dev/null", model, TraceRunInfo{}, TraceOptions::metadataOnly());
    if (kind == "log") return std::make_unique<DebugLogObserver>("/dev/null");
    if (kind == "nonfinite") return std::make_unique<NonFiniteWatch>();
    return nullptr;
}
}  // namespace

CLI::App* addBenchCommand(CLI::App& app, Options& o) {
    CLI::App* bench = app.add_subcommand("bench", "Measure prefill and decode speed and the weight-streaming rate");
    addModelOptions(*bench, o);
    const std::string positions = fmt::format("a token count from 1 to {}", ModelArgs::kMaxPositions);
    options::addIntegerList(*bench, "--prompt-tokens", o.benchPromptTokens, {1, ModelArgs::kMaxPositions, positions},
                            "Prompt lengths for the prefill: 32, or 32,128 (decode starts from an empty context, as llama-bench's)")
        ->delimiter(',')
        ->default_str("32");
    options::addInteger(*bench, "--decode-tokens", o.benchDecodeTokens, {1, ModelArgs::kMaxPositions, positions}, "Tokens to decode");
    options::addInteger(*bench, "--repeat", o.benchRepeats, {1, 1000, "a count from 1 to 1000"}, "Repetitions (the median is reported)");
    bench->add_option("--observer", o.benchObserver,
                      "What watches the stages: none, record (a trace without tensor data), log, nonfinite (every value checked)")
        ->check(CLI::IsMember({"none", "record", "log", "nonfinite"}));
    bench->add_flag("--profile", o.benchProfile, "Time per kind of ml:: op (LinearTransformation, MatMul, ...), per token");
    bench->add_option("--llama-bench", o.benchLlamaBench,
                      "llama.cpp's llama-bench binary: run it on the same --model FILE.gguf with the same settings and compare");
    options::addIntegerList(*bench, "--parallel", o.benchParallel, {1, 256, "a number of sequences from 1 to 256"},
                            "Batches of sequences instead: 1,4,8 measures B sequences decoded together, as llama-batched-bench")
        ->delimiter(',');
    bench->add_option("--llama-batched-bench", o.benchBatchedBench,
                      "With --parallel: llama.cpp's llama-batched-bench binary, run on the same --model FILE.gguf to compare")
        ->needs("--parallel");
    return bench;
}

void requireBenchFitsContext(const Options& o, const Model& model) {
    for (int promptTokens : o.benchPromptTokens)
        if (promptTokens + o.benchDecodeTokens > model.args.max_seq_len)
            throw std::invalid_argument(fmt::format("--prompt-tokens {} + --decode-tokens {} exceed the context length {} (--max-seq-len)",
                                                    promptTokens, o.benchDecodeTokens, model.args.max_seq_len));
}

int runBench(const Options& o) {
    if (!o.benchParallel.empty()) return runParallelBench(o);
    if (!o.benchBatchedBench.empty()) throw std::invalid_argument("--llama-batched-bench compares batches: give --parallel too");
    using Clock = std::chrono::steady_clock;
    const std::vector<int>& promptLengths = o.benchPromptTokens;
    // Checked first: a wrong --model should not cost the whole measurement.
    if (!o.benchLlamaBench.empty()) requireLlamaBenchInputs("--llama-bench", o.benchLlamaBench, o.model, !o.synthetic.empty());
    Session session;
    session.load(selectedSource(o), loadOptions(o, false));
    const Model& model = *session.model();
    printModelSummary(model);
    requireBenchFitsContext(o, model);
    const int threads = ml::ThreadPool::global().threadCount();
    fmt::print("\nbench: {} prompt tokens, {} decode tokens, {} repeats, {} threads, observer {}{}\n", fmt::join(promptLengths, ","),
               o.benchDecodeTokens, o.benchRepeats, threads, o.benchObserver, o.benchProfile ? ", op profile on" : "");
    // Which LinearTransformation kernels run (ml/kernels/kernel_set.h); LLAMA_KERNELS picks another.
    fmt::print("kernels: {} (this CPU runs {}; choose with LLAMA_KERNELS=NAME, or reference for the F32 method)\n",
               ml::kernels::active().name, fmt::join(ml::kernels::supportedPaths(), ", "));
    // How Q, K and V's three tasks run (ml/task_launch.h); LLAMA_TASKS picks another way.
    fmt::print("Q/K/V tasks: {} (choose with LLAMA_TASKS=new-thread, kept-threads or deferred)\n", ml::launchName(ml::defaultLaunch()));
    std::unique_ptr<StageObserver> observer = makeObserver(o.benchObserver, model);
    // With one prompt length the lines read as they always did.
    auto prefillLabel = [&](size_t i) {
        return promptLengths.size() == 1 ? std::string("prefill") : fmt::format("prefill ({} tokens)", promptLengths[i]);
    };

    // One untimed pass first, as llama-bench does: the first touch of the mapped weights and of
    // the heap would otherwise count against the first run.
    {
        InferenceContext ctx = session.newContext();
        session.forward(ctx, benchPrompt(promptLengths.front()), 0, LogitRows::Last);
        session.forward(ctx, {1}, promptLengths.front());
    }

    ml::setOpProfiling(o.benchProfile);
    PhaseProfile prefillProfile, decodeProfile;
    std::vector<std::vector<double>> prefillTps(promptLengths.size());
    std::vector<double> decodeTps;
    for (int r = 0; r < o.benchRepeats; ++r) {
        std::vector<std::string> line;
        double decodeRate = 0;
        for (size_t p = 0; p < promptLengths.size(); ++p) {
            const int promptTokens = promptLengths[p];
            InferenceContext ctx = session.newContext();
            if (observer) ctx.addObserver(observer.get());
            ml::resetOpProfile();
            auto t0 = Clock::now();
            // The last row's logits, as a generation asks (and llama-bench's prompt pass computes).
            Tensor logits = session.forward(ctx, benchPrompt(promptTokens), 0, LogitRows::Last);
            double prefill = std::chrono::duration<double>(Clock::now() - t0).count();
            if (o.benchProfile) prefillProfile.addSinceReset(promptTokens, 1, prefill);
            prefillTps[p].push_back(promptTokens / prefill);
            line.push_back(fmt::format("{} {:.2f} tok/s", prefillLabel(p), prefillTps[p].back()));
            if (p > 0) continue;  // one decode per run, after the first prompt

            // Decoded from an empty context, as llama-bench's generation test does (its tg test
            // clears the cache first): the prompt's length does not weigh on the decode's figure.
            // The first token is the one the prompt chose, then each step's greedy choice.
            int32_t next = int32_t(ml::Argmax(ml::Reshape(ml::Slice(logits, logits.dim(0) - 1, logits.dim(0)), {logits.dim(1)})));
            InferenceContext decodeCtx = session.newContext();
            if (observer) decodeCtx.addObserver(observer.get());
            ml::resetOpProfile();
            auto t1 = Clock::now();
            for (int i = 0; i < o.benchDecodeTokens; ++i) {
                Tensor step = session.forward(decodeCtx, {next}, i);
                next = int32_t(ml::Argmax(ml::Reshape(step, {step.dim(1)})));
            }
            double decode = std::chrono::duration<double>(Clock::now() - t1).count();
            if (o.benchProfile) decodeProfile.addSinceReset(o.benchDecodeTokens, o.benchDecodeTokens, decode);
            decodeRate = o.benchDecodeTokens / decode;
        }
        decodeTps.push_back(decodeRate);
        line.push_back(fmt::format("decode {:.2f} tok/s", decodeRate));
        fmt::print("  run {}: {}\n", r + 1, fmt::join(line, ", "));
    }
    ml::setOpProfiling(false);

    ml::BandwidthReport bw = ml::measureReadBandwidth();
    const double bytesPerToken = double(bytesPerDecodeToken(model));
    const double decodeMedian = median(decodeTps);
    const double streamGBps = bytesPerToken * decodeMedian / 1e9;
    std::vector<double> prefillMedians;
    fmt::print("\n");
    for (size_t p = 0; p < promptLengths.size(); ++p) {
        prefillMedians.push_back(median(prefillTps[p]));
        fmt::print("{}: {:.2f} tok/s (median)\n", prefillLabel(p), prefillMedians.back());
    }
    fmt::print("decode:  {:.2f} tok/s (median), {:.1f} MB of weights per token\n", decodeMedian, bytesPerToken / 1e6);
    fmt::print("decode weight streaming: {:.2f} GB/s; machine read bandwidth (probe, median of {}): {:.2f} GB/s; ratio {:.0f}%\n",
               streamGBps, bw.runsGBps.size(), bw.medianGBps, 100 * streamGBps / bw.medianGBps);
    if (o.benchProfile) printOpProfile(prefillProfile, decodeProfile);
    if (o.benchLlamaBench.empty()) return 0;
    return compareWithLlamaBench({o.benchLlamaBench, o.model, threads, promptLengths, o.benchDecodeTokens, o.benchRepeats,
                                  prefillMedians, decodeMedian});
}

}  // namespace llama::cli
