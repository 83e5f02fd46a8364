#include "state/tensor_slice.h"

#include <algorithm>
#include <stdexcept>

namespace llama::viewer {

SliceSpec defaultSlice(const Tensor& t) {
    int r = int(t.rank());
    SliceSpec s;
    s.rowAxis = r >= 2 ? r - 2 : -1;
    s.colAxis = std::max(0, r - 1);
    s.fixed.assign(size_t(r), 0);
    return s;
}

Slice2D extractSlice(const Tensor& t, SliceSpec spec) {
    if (!t.hasData()) throw std::invalid_argument("the tensor has no data (shape only, or dropped from an older step)");
    const int rank = int(t.rank());
    if (rank == 0) return {1, 1, {t.floatAt(0)}};
    spec.fixed.resize(size_t(rank), 0);
    spec.colAxis = std::clamp(spec.colAxis, 0, rank - 1);
    if (rank == 1 || spec.rowAxis == spec.colAxis) spec.rowAxis = -1;
    if (spec.rowAxis >= rank) spec.rowAxis = -1;
    for (int a = 0; a < rank; ++a) spec.fixed[size_t(a)] = std::clamp<int64_t>(spec.fixed[size_t(a)], 0, t.dim(a) - 1);

    std::vector<int64_t> strides(size_t(rank), 1);
    for (int a = rank - 2; a >= 0; --a) strides[size_t(a)] = strides[size_t(a + 1)] * t.dim(a + 1);
    int64_t base = 0;
    for (int a = 0; a < rank; ++a)
        if (a != spec.rowAxis && a != spec.colAxis) base += spec.fixed[size_t(a)] * strides[size_t(a)];

    Slice2D out;
    out.rows = spec.rowAxis < 0 ? 1 : t.dim(spec.rowAxis);
    out.cols = t.dim(spec.colAxis);
    out.values.resize(size_t(out.rows * out.cols));
    const int64_t rowStride = spec.rowAxis < 0 ? 0 : strides[size_t(spec.rowAxis)];
    const int64_t colStride = strides[size_t(spec.colAxis)];
    for (int64_t r = 0; r < out.rows; ++r)
        for (int64_t c = 0; c < out.cols; ++c) out.values[size_t(r * out.cols + c)] = t.floatAt(base + r * rowStride + c * colStride);
    return out;
}

}  // namespace llama::viewer
