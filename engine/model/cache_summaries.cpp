#include "model/cache_summaries.h"

#include <algorithm>
#include <utility>

namespace llama {

namespace {

// How many distinct elements `t` shows, when they are exactly the first ones of its buffer: its
// dimensions (repeats collapsed) are a reordering of a row-major layout starting at element 0.
// 0 when they are not.
int64_t denseElements(const Tensor& t) {
    const Shape& shape = t.shape();
    const Strides strides = t.strides(), repeats = t.repeats();
    std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, distinct length)
    int64_t count = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (repeats[d] < 1 || shape[d] % repeats[d]) return 0;
        const int64_t length = shape[d] / repeats[d];
        count *= length;
        if (length > 1) dims.emplace_back(strides[d], length);
    }
    std::sort(dims.begin(), dims.end());
    int64_t expected = 1;
    for (auto [stride, length] : dims) {
        if (stride != expected) return 0;
        expected *= length;
    }
    return count;
}

int64_t product(const Strides& s) {
    int64_t p = 1;
    for (int64_t v : s) p *= v;
    return p;
}

}  // namespace

CacheSummaries::CacheSummaries(const std::vector<Tensor>& cacheK, const std::vector<Tensor>& cacheV, const std::vector<int64_t>& rowsWritten)
    : cacheK_(cacheK), cacheV_(cacheV), rowsWritten_(rowsWritten) {}

void CacheSummaries::forgetFrom(int layer, Cell firstCell) {
    for (size_t i = 0; i < entries_.size(); ++i)
        if ((layer < 0 || int(i / 2) == layer) && entries_[i].rows > firstCell.value) entries_[i] = {};
}

std::optional<TensorStats> CacheSummaries::find(const Tensor& t) const {
    if (!t.hasData() || t.numel() == 0) return std::nullopt;
    entries_.resize(2 * cacheK_.size());
    for (size_t i = 0; i < entries_.size(); ++i) {
        const Tensor& cache = i % 2 ? cacheV_[i / 2] : cacheK_[i / 2];
        if (!cache.hasData() || t.viewData<char>() != cache.viewData<char>() || t.dtype() != cache.dtype()) continue;
        const int64_t rowElements = cache.dim(1) * cache.dim(2), elements = denseElements(t);
        if (elements == 0 || elements % rowElements || elements / rowElements > cache.dim(0)) return std::nullopt;
        const int64_t rows = elements / rowElements;
        Entry& e = entries_[i];
        if (e.base != cache.viewData<char>()) e = {.base = cache.viewData<char>()};
        if (e.rows > rows) return std::nullopt;  // fewer rows than summarised: read them afresh
        // As computeStats reads the row-major cache: a row of the last dimension (one head's
        // HeadDim values) at a time; the rows no pass has reached are zeros, not read.
        const int64_t written = std::clamp<int64_t>(i / 2 < rowsWritten_.size() ? rowsWritten_[i / 2] : rows, e.rows, rows);
        e.acc.addRows(cache.viewData<char>() + dtypeBytes(cache.dtype(), e.rows * rowElements), cache.dtype(), cache.dim(2),
                      (written - e.rows) * cache.dim(1));
        e.acc.addZeros((rows - written) * rowElements);
        e.rows = rows;
        return e.acc.summary(t, product(t.repeats()));
    }
    return std::nullopt;
}

}  // namespace llama
