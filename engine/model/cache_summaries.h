#pragma once
// The KV cache's summaries, kept as the cache grows. Three stages show the cache (cache_read,
// repeat_kv, transposes) and a trace summarises each of them at every step of every layer: read
// whole, that is the whole cache three times a step, more reading than a small model's own
// arithmetic at a few hundred positions. A pass writes the cache only from its first cell on, so
// each layer's keys and values carry an accumulator over the rows summarised so far and add only
// the new rows; a view of the same elements (repeated, transposed) gets the same summary.
#include <optional>
#include <vector>

#include "model/position_and_cell.h"
#include "stages/stage_event.h"
#include "tensor/tensor.h"
#include "tensor/tensor_stats.h"

namespace llama {

class CacheSummaries : public KnownSummaries {
public:
    // Borrows the context's caches (their tensors may be replaced: a new buffer starts afresh) and
    // how many rows of each layer's hold values (InferenceContext::cacheRows): the rest are zeros,
    // counted without being read.
    CacheSummaries(const std::vector<Tensor>& cacheK, const std::vector<Tensor>& cacheV, const std::vector<int64_t>& rowsWritten);

    // A pass is about to write `layer`'s rows from `firstCell` on (layer -1: every layer's).
    void forgetFrom(int layer, Cell firstCell);

    // The summary of `t` when it shows the first rows of one layer's keys or values (whole rows,
    // each element once, in any order of dimensions, repeated or not); nullopt otherwise.
    std::optional<TensorStats> find(const Tensor& t) const override;

private:
    struct Entry {
        const void* base = nullptr;  // the buffer the rows were read from
        int64_t rows = 0;            // rows [0, rows) are in acc
        StatsAccumulator acc;
    };
    const std::vector<Tensor>& cacheK_;
    const std::vector<Tensor>& cacheV_;
    const std::vector<int64_t>& rowsWritten_;
    mutable std::vector<Entry> entries_;  // layer l's keys at 2l, its values at 2l + 1
};

}  // namespace llama
