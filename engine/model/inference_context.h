#pragma once
// Everything one generation carries between forward passes: the KV cache of every layer,
// the observers watching the stages, and where we are in the run.
#include <atomic>
#include <mutex>
#include <vector>

#include "model/kv_cells.h"
#include "model/cache_summaries.h"
#include "model/model_args.h"
#include "model/what_if.h"
#include "stages/stage_event.h"
#include "stages/stage_marks.h"
#include "tensor/tensor.h"

namespace llama {

// A stage mark's last argument when its operation may not run: skippedIf(!mask).
struct SkippedIf {
    bool skipped = false;
};
inline SkippedIf skippedIf(bool condition) { return {condition}; }

class InferenceContext {
public:
    // Caches are allocated for max_seq_len positions (shape-only when `shapesOnly`, for dry runs),
    // as `cacheDType`: the run's compute dtype where the caller knows it, so that they are not
    // allocated twice. Their rows are zeroed only as passes reach them (prepareCacheRows): memory
    // a run never reaches is never touched (in the browser, a 45-token run of a 2,048-position
    // context keeps 2% of its cache in memory, not all of it).
    InferenceContext(const ModelArgs& args, bool shapesOnly = false, DType cacheDType = DType::BF16);

    std::vector<Tensor> CacheK;  // per layer: [maxSeqLen, N_KVHeads, HeadDim]
    std::vector<Tensor> CacheV;
    int maxSeqLen;
    KvCells Cells;  // which sequences and positions the cache rows hold (a batch of sequences)
    int step = 0;  // token step (0 = prefill)
    WhatIf whatIf;  // the experiment this run is, if any (default: the model itself)

    // The caches hold the run's compute dtype (LlamaTransformer::ComputeDType): allocated as
    // another, they are reallocated as `dtype` at a run's first pass (cell 0); a later pass of
    // another dtype is a logic error (one context serves one transformer).
    void useCacheDType(DType dtype, Cell firstCell);
    // Rows [0, rows) of `layer`'s keys and values as a pass reads and writes them: those never
    // reached before are zeroed first (the rest of the cache reads as zeros: cacheRows()).
    void prepareCacheRows(int layer, int64_t rows);
    // Per layer, the rows of its caches that hold values; the others are zeros not yet written.
    const std::vector<int64_t>& cacheRows() const { return cacheRows_; }

    void addObserver(StageObserver* observer) { observers_.push_back(observer); }
    // Only `observers` watch until the returned guard goes, then the run's own are back: a pass
    // run again for one observer (model/finite_logits.h) is seen by no other.
    class ObservedOnlyBy {
    public:
        ObservedOnlyBy(InferenceContext& ctx, std::vector<StageObserver*> observers) : ctx_(ctx), saved_(std::move(ctx.observers_)) {
            ctx.observers_ = std::move(observers);
        }
        ~ObservedOnlyBy() { ctx_.observers_ = std::move(saved_); }
        ObservedOnlyBy(const ObservedOnlyBy&) = delete;
        ObservedOnlyBy& operator=(const ObservedOnlyBy&) = delete;

    private:
        InferenceContext& ctx_;
        std::vector<StageObserver*> saved_;
    };
    [[nodiscard]] ObservedOnlyBy observedOnlyBy(std::vector<StageObserver*> observers) { return ObservedOnlyBy(*this, std::move(observers)); }
    // Whether anyone watches: a mark whose fields cost something to make (a table as text) is
    // made only then.
    bool observed() const { return !observers_.empty(); }
    // The generation ends at the next stage boundary once `flag` is set (from any thread, or a
    // signal handler: setting a lock-free atomic is all it takes).
    void stopWhen(const std::atomic<bool>* flag) { stop_ = flag; }
    bool stopRequested() const { return stop_ && stop_->load(); }

    // Where the stage marks that follow happen: set once per forward pass and once per block;
    // the previous place comes back when the returned guard goes.
    class Place {
    public:
        Place(InferenceContext& ctx, int layer, Position startPos, Cell firstCell);
        ~Place();
        Place(const Place&) = delete;
        Place& operator=(const Place&) = delete;

    private:
        InferenceContext& ctx_;
        int layer_, startPos_;
    };
    // startPos: the events' (the log's) start position; firstCell: where the pass writes the cache.
    [[nodiscard]] Place at(int layer, Position startPos, Cell firstCell) { return Place(*this, layer, startPos, firstCell); }

    // A stage mark: tells every observer that the mark's stage finished, with the values its
    // log line names (marks::Id, stage_marks.h: the fields stages.def declares). The line is
    // written (from the catalog's wording) only when someone listens, so an unobserved run pays
    // nothing for logging. Safe to call from the Q/K/V tasks: marks are delivered one at a time,
    // in the order they are made.
    template <typename Mark> void stage(const Mark& mark, SkippedIf skipped = {}) {
        if (stopRequested()) throw GenerationStopped{};
        if (!observers_.empty()) {
            const bool wording = readsWording(Mark::kStage);
            deliver(Mark::kStage, marks::fieldsOf(mark, wording), skipped, wording);
        }
    }

private:
    void deliver(StageId stage, std::vector<StageField> fields, SkippedIf skipped, bool wording);
    bool readsValues(StageId stage) const;
    bool readsWording(StageId stage) const;  // some observer reads more than the tensors' handles

    std::vector<StageObserver*> observers_;
    std::vector<int64_t> cacheRows_;  // per layer: rows [0, n) zeroed or written
    CacheSummaries cacheSummaries_{CacheK, CacheV, cacheRows_};
    std::mutex oneAtATime_;  // one mark at a time reaches the observers
    const std::atomic<bool>* stop_ = nullptr;
    int layer_ = -1, startPos_ = 0;
    int nLayers_, nHeads_, nKVHeads_, nRep_, headDim_;
};

}  // namespace llama
