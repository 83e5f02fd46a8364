#include "state/attention_explain.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace llama::viewer {

double RowExplanation::probability(size_t col) const {
    const double s = score(col);
    return std::isinf(s) ? 0.0 : std::exp(s - rowMax) / sumExp;
}

RowExplanation explainAttentionRow(const Tensor& xq, const Tensor& keys, const Tensor* mask, int head, int row) {
    if (xq.rank() != 3 || keys.rank() != 3) throw std::invalid_argument("xq and keys must be [heads, rows, HeadDim] and [heads, HeadDim, positions]");
    const int64_t heads = xq.dim(0), seqLen = xq.dim(1), headDim = xq.dim(2), positions = keys.dim(2);
    if (keys.dim(0) != heads || keys.dim(1) != headDim) throw std::invalid_argument("xq and keys do not match");
    if (mask && (mask->rank() != 2 || mask->dim(0) != seqLen || mask->dim(1) != positions))
        throw std::invalid_argument("the mask does not match xq's rows and the keys' positions");
    if (head < 0 || head >= heads || row < 0 || row >= seqLen) throw std::out_of_range("attention row outside the captured tensors");

    RowExplanation r;
    r.headDim = int(headDim);
    r.scale = roundToBF16(std::sqrt(float(headDim)));
    // q · k for every column, the keys read row by row (each key dimension is a contiguous row).
    r.dot.assign(size_t(positions), 0.0);
    const int64_t qBase = (int64_t(head) * seqLen + row) * headDim;
    const int64_t kBase = int64_t(head) * headDim * positions;
    // F32 rows in place when the tensors are (a trace's are), else element by element: the same sums.
    const bool direct = xq.dtype() == DType::F32 && keys.dtype() == DType::F32 && xq.isContiguous() && keys.isContiguous();
    for (int64_t d = 0; d < headDim; ++d) {
        const double q = xq.floatAt(qBase + d);
        if (direct) {
            const float* k = keys.data<float>() + kBase + d * positions;
            for (int64_t p = 0; p < positions; ++p) r.dot[size_t(p)] += q * k[p];
        } else
            for (int64_t p = 0; p < positions; ++p) r.dot[size_t(p)] += q * keys.floatAt(kBase + d * positions + p);
    }
    r.mask.assign(size_t(positions), 0.0f);
    if (mask)
        for (int64_t p = 0; p < positions; ++p) r.mask[size_t(p)] = mask->floatAt(row * positions + p);
    // The softmax normalises over every score of the row.
    r.rowMax = -INFINITY;
    for (size_t p = 0; p < size_t(positions); ++p) r.rowMax = std::max(r.rowMax, r.score(p));
    for (size_t p = 0; p < size_t(positions); ++p) {
        if (std::isinf(r.score(p))) continue;
        r.sumExp += std::exp(r.score(p) - r.rowMax);
        r.visible++;
    }
    return r;
}

CellExplanation explainAttentionCell(const Tensor& xq, const Tensor& keys, const Tensor* mask, int head, int row, int col) {
    const RowExplanation r = explainAttentionRow(xq, keys, mask, head, row);
    if (col < 0 || size_t(col) >= r.dot.size()) throw std::out_of_range("attention cell outside the captured tensors");
    const size_t c = size_t(col);
    CellExplanation e;
    e.head = head, e.row = row, e.col = col, e.headDim = r.headDim, e.scale = r.scale;
    e.dot = r.dot[c], e.scaled = r.scaled(c), e.mask = r.mask[c], e.score = r.score(c);
    e.rowMax = r.rowMax, e.sumExp = r.sumExp, e.visible = r.visible, e.probability = r.probability(c);
    return e;
}

}  // namespace llama::viewer
