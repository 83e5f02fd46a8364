#include "bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "ml/bandwidth_probe.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"
#include "model/llama_transformer.h"
#include "session.h"
#include "trace/debug_log_observer.h"
#include "trace/trace_recorder.h"

namespace llama::cli {

namespace {
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Bytes a decode step streams: every weight once, except the embedding table, of which it reads one row.
size_t bytesPerDecodeToken(const Model& model) {
    size_t bytes = 0;
    for (const auto& [name, t] : model.tensors)
        bytes += name == "tok_embeddings.weight" ? t.byteSize() / size_t(t.dim(0)) : t.byteSize();
    return bytes;
}

// --observer: what watches every stage while we time. "none" must cost nothing; "record" is the
// trace recorder keeping only the stage flow (no tensor data), whose cost must stay small.
std::unique_ptr<StageObserver> makeObserver(const std::string& kind, const Model& model) {
    if (kind == "record") return std::make_unique<TraceRecorder>("/dev/null", model, TraceRunInfo{}, TraceOptions::metadataOnly());
    if (kind == "log") return std::make_unique<DebugLogObserver>("/dev/null");
    return nullptr;
}
}  // namespace

int runBench(const Options& o) {
    using Clock = std::chrono::steady_clock;
    Model model = loadSelectedModel(o);
    printModelSummary(model);
    if (o.benchPromptTokens + o.benchDecodeTokens > model.args.max_seq_len)
        throw std::invalid_argument(fmt::format("--prompt-tokens + --decode-tokens exceed the context length {}", model.args.max_seq_len));
    LlamaTransformer transformer(model);
    const int threads = ml::ThreadPool::global().threadCount();
    fmt::print("\nbench: {} prompt tokens, {} decode tokens, {} repeats, {} threads, observer {}\n", o.benchPromptTokens,
               o.benchDecodeTokens, o.benchRepeats, threads, o.benchObserver);
    std::unique_ptr<StageObserver> observer = makeObserver(o.benchObserver, model);

    // A fixed prompt of ordinary (non-special) token ids, the same every run.
    std::vector<int32_t> prompt;
    for (int i = 0; i < o.benchPromptTokens; ++i) prompt.push_back(int32_t((i * 7919 + 13) % 256));

    std::vector<double> prefillTps, decodeTps;
    for (int r = 0; r < o.benchRepeats; ++r) {
        InferenceContext ctx(model.args);
        if (observer) ctx.addObserver(observer.get());
        auto t0 = Clock::now();
        Tensor logits = transformer.Forward(ctx, Tensor::fromInt32(prompt), 0);
        double prefill = std::chrono::duration<double>(Clock::now() - t0).count();
        int32_t next = int32_t(ml::Argmax(ml::Reshape(ml::Slice(logits, logits.dim(0) - 1, logits.dim(0)), {logits.dim(1)})));
        auto t1 = Clock::now();
        for (int i = 0; i < o.benchDecodeTokens; ++i) {
            Tensor step = transformer.Forward(ctx, Tensor::fromInt32({next}), o.benchPromptTokens + i);
            next = int32_t(ml::Argmax(ml::Reshape(step, {step.dim(1)})));
        }
        double decode = std::chrono::duration<double>(Clock::now() - t1).count();
        prefillTps.push_back(o.benchPromptTokens / prefill);
        decodeTps.push_back(o.benchDecodeTokens / decode);
        fmt::print("  run {}: prefill {:.2f} tok/s, decode {:.2f} tok/s\n", r + 1, prefillTps.back(), decodeTps.back());
    }

    ml::BandwidthReport bw = ml::measureReadBandwidth();
    const double bytesPerToken = double(bytesPerDecodeToken(model));
    const double decodeMedian = median(decodeTps);
    const double streamGBps = bytesPerToken * decodeMedian / 1e9;
    fmt::print("\nprefill: {:.2f} tok/s (median)\n", median(prefillTps));
    fmt::print("decode:  {:.2f} tok/s (median), {:.1f} MB of weights per token\n", decodeMedian, bytesPerToken / 1e6);
    fmt::print("decode weight streaming: {:.2f} GB/s; machine read bandwidth (probe, median of {}): {:.2f} GB/s; ratio {:.0f}%\n",
               streamGBps, bw.runsGBps.size(), bw.medianGBps, 100 * streamGBps / bw.medianGBps);
    return 0;
}

}  // namespace llama::cli
