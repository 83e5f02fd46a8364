#include "trace/tensor_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace llama {

// Only the sum depends on the order the elements are visited in, and in double hardly at all
// (the mean is rounded to float): rows are summed in eight interleaved lanes, a strided view row
// by row as it lies in memory, a repeated dimension once. Summaries are taken of every tensor at
// every stage while a trace records, so this loop is written for the compiler to vectorise (no
// branches in the lanes).
void StatsAccumulator::add(float v) {
    if (!std::isfinite(v)) {
        negInf_ += std::isinf(v) && v < 0;
        return;
    }
    min_ = std::min(min_, v);
    max_ = std::max(max_, v);
    sum_ += v;
    finite_++;
}

template <typename Load> void StatsAccumulator::addRow(Load load, int64_t n, int64_t stride) {
    int64_t i = 0;
    if (stride == 1) {
        constexpr int kLanes = 8;
        constexpr float kInf = std::numeric_limits<float>::infinity();
        float lmn[kLanes], lmx[kLanes];
        double lsum[kLanes];
        int64_t lfinite[kLanes], lneg[kLanes];
        for (int l = 0; l < kLanes; ++l) lmn[l] = kInf, lmx[l] = -kInf, lsum[l] = 0, lfinite[l] = 0, lneg[l] = 0;
        for (; i + kLanes <= n; i += kLanes)
            for (int l = 0; l < kLanes; ++l) {
                const float v = load(i + l);
                const bool isFinite = v - v == 0;  // false for inf and NaN
                lmn[l] = isFinite && v < lmn[l] ? v : lmn[l];
                lmx[l] = isFinite && v > lmx[l] ? v : lmx[l];
                lsum[l] += isFinite ? double(v) : 0.0;
                lfinite[l] += isFinite;
                lneg[l] += v == -kInf;
            }
        for (int l = 0; l < kLanes; ++l) {
            min_ = std::min(min_, lmn[l]);
            max_ = std::max(max_, lmx[l]);
            sum_ += lsum[l];
            finite_ += lfinite[l];
            negInf_ += lneg[l];
        }
    }
    for (; i < n; ++i) add(load(i * stride));
}

// Visits every distinct element of `t` once: each dimension's repeats collapse to one index
// (a repeated element changes neither min, max nor the mean; the counts are multiplied back).
// Returns how many times each visited element occurs, 0 when the view cannot be read this way.
template <typename Load> int64_t StatsAccumulator::visitDistinct(const Tensor& t, Load load) {
    const Shape& shape = t.shape();
    const Strides strides = t.strides(), repeats = t.repeats();
    const size_t rank = shape.size();
    Shape reduced(rank);
    int64_t times = 1;
    for (size_t d = 0; d < rank; ++d) {
        if (shape[d] % repeats[d]) return 0;
        reduced[d] = shape[d] / repeats[d];
        times *= repeats[d];
    }
    if (rank == 0) {
        add(load(0));
        return times;
    }
    // An odometer over all but the last dimension; each row is read along the last one.
    std::vector<int64_t> index(rank, 0);
    const int64_t rowLength = reduced[rank - 1], rowStride = strides[rank - 1];
    if (rowLength == 0) return times;
    while (true) {
        int64_t offset = 0;
        for (size_t d = 0; d + 1 < rank; ++d) offset += index[d] * strides[d];
        addRow([&](int64_t i) { return load(offset + i); }, rowLength, rowStride);
        size_t d = rank - 1;
        while (d-- > 0) {
            if (++index[d] < reduced[d]) break;
            index[d] = 0;
        }
        if (d == size_t(-1)) return times;
    }
}

void StatsAccumulator::addRows(const void* data, DType dtype, int64_t rowLength, int64_t rows) {
    for (int64_t r = 0; r < rows; ++r) {
        if (dtype == DType::F32) {
            const float* p = static_cast<const float*>(data) + r * rowLength;
            addRow([p](int64_t e) { return p[e]; }, rowLength, 1);
        } else if (dtype == DType::BF16) {
            const auto* p = static_cast<const BFloat16*>(data) + r * rowLength;
            addRow([p](int64_t e) { return p[e].toFloat(); }, rowLength, 1);
        } else {
            throw std::logic_error(std::string("StatsAccumulator::addRows: F32 or BF16 rows expected, got ") + dtypeName(dtype));
        }
    }
}

TensorStats StatsAccumulator::summary(const Tensor& t, int64_t times, int firstCount) const {
    TensorStats s;
    for (int64_t i = 0; i < std::min<int64_t>(firstCount, t.numel()); ++i) s.first.push_back(t.floatAt(i));
    s.negInf = negInf_ * times;
    if (finite_) {
        s.min = min_;
        s.max = max_;
        s.mean = float(sum_ / double(finite_));
    }
    return s;
}

TensorStats computeStats(const Tensor& t, int firstCount) {
    if (!t.hasData() || t.numel() == 0) return {};
    StatsAccumulator acc;
    int64_t times = 1;
    if (t.dtype() == DType::F32) {
        const float* p = t.viewData<float>();
        times = acc.visitDistinct(t, [p](int64_t e) { return p[e]; });
    } else if (t.dtype() == DType::BF16) {
        const auto* p = t.viewData<BFloat16>();
        times = acc.visitDistinct(t, [p](int64_t e) { return p[e].toFloat(); });
    } else {
        times = 0;
    }
    if (times == 0) {  // other dtypes (never views), and views whose repeats do not divide their dimensions
        acc = {};
        times = 1;
        for (int64_t i = 0, n = t.numel(); i < n; ++i) acc.add(t.floatAt(i));
    }
    return acc.summary(t, times, firstCount);
}
std::string formatStats(const TensorStats& s) {
    std::string first;
    for (float v : s.first) first += fmt::format("{}{:.4g}", first.empty() ? "" : ", ", v);
    std::string text = fmt::format("min {:.4g} max {:.4g} mean {:.4g} first [{}]", s.min, s.max, s.mean, first);
    if (s.negInf) text += fmt::format(" ({} x -inf)", s.negInf);
    return text;
}

}  // namespace llama
