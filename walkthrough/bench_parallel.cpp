#include "bench_parallel.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "batch/batch_decode.h"
#include "batched_bench.h"
#include "bench_command.h"
#include "llama_bench.h"
#include "median.h"
#include "ml/bandwidth_probe.h"
#include "ml/thread_pool.h"
#include "model_source_options.h"
#include "model_summary.h"
#include "session/model_source.h"

namespace llama::cli {

namespace {
using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

struct Timing {
    double pp = 0, tg = 0;  // seconds
};

// One measurement, as llama-batched-bench makes it: the prompts of all sequences in one batch
// (position-major, only the very last token wants logits), then tg steps of one token per sequence.
Timing measure(const LlamaTransformer& transformer, const ModelArgs& args, int nSeqs, int pp, int tg, int nUbatch) {
    InferenceContext ctx(args);
    LlamaBatch batch;
    for (int i = 0; i < pp; ++i)
        for (int s = 0; s < nSeqs; ++s) batch.add(int32_t((i * 7919 + 13) % 256), i, {s}, false);
    batch.logits.back() = true;
    Timing t;
    auto start = Clock::now();
    llamaDecode(ctx, transformer, batch, nUbatch);
    t.pp = seconds(start);
    start = Clock::now();
    for (int i = 0; i < tg; ++i) {
        batch.clear();
        for (int s = 0; s < nSeqs; ++s) batch.add(13, pp + i, {s}, true);
        llamaDecode(ctx, transformer, batch, nUbatch);
    }
    t.tg = seconds(start);
    return t;
}
}  // namespace

int runParallelBench(const Options& o) {
    if (o.benchPromptTokens.size() != 1) throw std::invalid_argument("bench --parallel takes one --prompt-tokens length");
    const int pp = o.benchPromptTokens.front(), tg = o.benchDecodeTokens;
    const int most = *std::max_element(o.benchParallel.begin(), o.benchParallel.end());
    // Every sequence's cells, as batched-bench's -c.
    const int64_t cells = int64_t(most) * (pp + tg);
    if (cells > ModelArgs::kMaxPositions)
        throw std::invalid_argument(fmt::format("{} sequences of {} + {} tokens need {} KV cells, more than the {} positions a context may hold",
                                                most, pp, tg, cells, ModelArgs::kMaxPositions));
    if (!o.benchBatchedBench.empty()) requireLlamaBenchInputs("--llama-batched-bench", o.benchBatchedBench, o.model, !o.synthetic.empty());
    Session session;
    session.load(selectedSource(o), loadOptions(o, false));
    const Model& model = *session.model();
    printModelSummary(model);
    requireBenchFitsContext(o, model);  // each sequence's positions, as plain bench's
    ModelArgs args = model.args;
    args.max_seq_len = std::max(args.max_seq_len, int(cells));
    requireRunMemory(args, "measure fewer sequences (--parallel) or fewer tokens (--prompt-tokens, --decode-tokens)");
    const LlamaTransformer& transformer = session.transformer();
    const int threads = ml::ThreadPool::global().threadCount();
    const int nUbatch = kDefaultUbatch;
    fmt::print("\nbench --parallel {}: {} prompt tokens and {} generated tokens per sequence, {} repeats, {} threads, n_ubatch {}\n",
               fmt::join(o.benchParallel, ","), pp, tg, o.benchRepeats, threads, nUbatch);
    measure(transformer, args, 1, std::min(pp, 16), 1, nUbatch);  // untimed: the first touch of the weights

    size_t weightBytes = 0;
    for (const auto& [name, t] : model.tensors) weightBytes += name == "tok_embeddings.weight" ? 0 : t.byteSize();
    std::vector<double> ppMedians, tgMedians;
    fmt::print("\n{:>4}  {:>6}  {:>10}  {:>10}  {:>10}  {:>10}  {:>14}\n", "B", "N_KV", "T_PP s", "S_PP t/s", "T_TG s", "S_TG t/s", "TG weights GB/s");
    for (int b : o.benchParallel) {
        std::vector<double> ppRates, tgRates, tgSeconds;
        for (int r = 0; r < o.benchRepeats; ++r) {
            const Timing t = measure(transformer, args, b, pp, tg, nUbatch);
            ppRates.push_back(b * pp / t.pp);
            tgRates.push_back(b * tg / t.tg);
            tgSeconds.push_back(t.tg);
        }
        ppMedians.push_back(median(ppRates));
        tgMedians.push_back(median(tgRates));
        const double stepSeconds = median(tgSeconds) / tg;
        fmt::print("{:>4}  {:>6}  {:>10.3f}  {:>10.2f}  {:>10.3f}  {:>10.2f}  {:>14.2f}\n", b, b * (pp + tg), b * pp / ppMedians.back(),
                   ppMedians.back(), b * tg / tgMedians.back(), tgMedians.back(), double(weightBytes) / stepSeconds / 1e9);
    }
    const double base = tgMedians.front();
    fmt::print("\nTG tokens/s relative to B = {}:", o.benchParallel.front());
    for (size_t i = 0; i < tgMedians.size(); ++i) fmt::print(" B={} {:.2f}x", o.benchParallel[i], tgMedians[i] / base);
    const ml::BandwidthReport bw = ml::measureReadBandwidth();
    fmt::print("\nmachine read bandwidth (probe, median of {}): {:.2f} GB/s; each TG step reads the {:.1f} MB of weights once for all B\n",
               bw.runsGBps.size(), bw.medianGBps, weightBytes / 1e6);
    if (o.benchBatchedBench.empty()) return 0;
    return compareWithBatchedBench({o.benchBatchedBench, o.model, threads, pp, tg, o.benchRepeats, nUbatch, o.benchParallel, ppMedians, tgMedians});
}

}  // namespace llama::cli
