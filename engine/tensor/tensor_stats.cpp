#include "tensor/tensor_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace llama {

// Only the sum depends on the order the elements are visited in, and in double hardly at all
// (the mean is rounded to float): elements are summed in eight interleaved lanes (tensor_stats.h),
// a strided view row by row, a repeated dimension once. Summaries are taken of every tensor at
// every stage while a trace records, so the contiguous loop is written for the compiler to
// vectorise (no branches in the lanes; CMakeLists.txt compiles this file without trapping math).
void StatsAccumulator::add(float v) {
    const int lane = int(added_++ % kLanes);
    if (!std::isfinite(v)) {
        negInf_ += std::isinf(v) && v < 0;
        return;
    }
    min_ = std::min(min_, v);
    max_ = std::max(max_, v);
    laneSum_[lane] += v;
    finite_++;
}

template <typename Load> void StatsAccumulator::addRow(Load load, int64_t n, int64_t stride) {
    int64_t i = 0;
    for (; i < n && added_ % kLanes; ++i) add(load(i * stride));  // up to the first lane
#if defined(__AVX__) || defined(__aarch64__)
    constexpr bool kVectorLanes = true;
#else
    constexpr bool kVectorLanes = false;  // eight float lanes are one AVX register; SSE2 alone runs them slower than add()
#endif
    if (kVectorLanes && stride == 1 && i + kLanes <= n) {
        // The lanes as GCC/Clang vector types: plain C++ does not vectorise their selects.
        using Floats = float __attribute__((vector_size(4 * kLanes)));
        using Ints = int32_t __attribute__((vector_size(4 * kLanes)));
        using Doubles = double __attribute__((vector_size(8 * kLanes / 2)));
        constexpr float kInf = std::numeric_limits<float>::infinity();
        Floats lo = {}, hi = {};
        lo += kInf;
        hi -= kInf;
        Doubles sumLow = {}, sumHigh = {};
        for (int l = 0; l < kLanes / 2; ++l) sumLow[l] = laneSum_[l], sumHigh[l] = laneSum_[l + kLanes / 2];
        while (i + kLanes <= n) {
            // int32 counts: at most 2^28 blocks before they are added up
            const int64_t blocks = std::min<int64_t>((n - i) / kLanes, int64_t(1) << 28);
            Ints finite = {}, negInf = {};
            for (int64_t b = 0; b < blocks; ++b, i += kLanes) {
                Floats v;
                for (int l = 0; l < kLanes; ++l) v[l] = load(i + l);
                const Ints isFinite = v - v == 0;  // -1 where finite, 0 for inf and NaN
                lo = isFinite && v < lo ? v : lo;
                hi = isFinite && v > hi ? v : hi;
                const Floats f = isFinite ? v : Floats{};
                Doubles low, high;
                for (int l = 0; l < kLanes / 2; ++l) low[l] = f[l], high[l] = f[l + kLanes / 2];
                sumLow += low;
                sumHigh += high;
                finite -= isFinite;
                negInf -= v == -kInf;
            }
            added_ += blocks * kLanes;
            for (int l = 0; l < kLanes; ++l) finite_ += finite[l], negInf_ += negInf[l];
        }
        for (int l = 0; l < kLanes; ++l) min_ = std::min(min_, lo[l]), max_ = std::max(max_, hi[l]);
        for (int l = 0; l < kLanes / 2; ++l) laneSum_[l] = sumLow[l], laneSum_[l + kLanes / 2] = sumHigh[l];
    }
    for (; i < n; ++i) add(load(i * stride));
}

// Visits every distinct element of `t` once: each dimension's repeats collapse to one index
// (a repeated element changes neither min, max nor the mean; the counts are multiplied back).
// Returns how many times each visited element occurs, 0 when the view cannot be read this way.
template <typename Load> int64_t StatsAccumulator::visitDistinct(const Tensor& t, Load load) {
    // A row-major tensor is one row (the lanes make that the same sum as row by row, and cheaper).
    if (t.isContiguous()) {
        addRow(load, t.numel(), 1);
        return 1;
    }
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

void StatsAccumulator::addZeros(int64_t n) {
    if (n <= 0) return;
    // As add(0.0f) n times: the minimum, the maximum and each lane's sum change at most at the
    // first zero they meet (-0.0 + 0.0 is +0.0; after that adding zero changes nothing).
    for (int64_t i = 0; i < std::min<int64_t>(n, kLanes); ++i) laneSum_[(added_ + i) % kLanes] += 0.0f;
    min_ = std::min(min_, 0.0f);
    max_ = std::max(max_, 0.0f);
    added_ += n;
    finite_ += n;
}

TensorStats StatsAccumulator::summary(const Tensor& t, int64_t times, int firstCount) const {
    TensorStats s;
    const int64_t first = std::min<int64_t>(firstCount, t.numel());
    s.first.reserve(size_t(std::max<int64_t>(first, 0)));  // one allocation, not three: a traced token makes thousands
    for (int64_t i = 0; i < first; ++i) s.first.push_back(t.floatAt(i));
    s.negInf = negInf_ * times;
    if (finite_) {
        s.min = min_;
        s.max = max_;
        double sum = 0;
        for (double lane : laneSum_) sum += lane;
        s.mean = float(sum / double(finite_));
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
