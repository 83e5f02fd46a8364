#include "state/attention_explain.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace llama::viewer {

CellExplanation explainAttentionCell(const Tensor& xq, const Tensor& keys, const Tensor* mask, int head, int row, int col) {
    const int64_t heads = xq.dim(0), seqLen = xq.dim(1), headDim = xq.dim(2), positions = keys.dim(2);
    if (head < 0 || head >= heads || row < 0 || row >= seqLen || col < 0 || col >= positions)
        throw std::out_of_range("attention cell outside the captured tensors");
    if (keys.dim(0) != heads || keys.dim(1) != headDim) throw std::invalid_argument("xq and keys do not match");

    CellExplanation e;
    e.head = head, e.row = row, e.col = col, e.headDim = int(headDim);
    e.scale = roundToBF16(std::sqrt(float(headDim)));

    // Every score of the row, because the softmax normalises over all of them.
    std::vector<double> scores(static_cast<size_t>(positions));
    const int64_t qBase = (int64_t(head) * seqLen + row) * headDim;
    const int64_t kBase = int64_t(head) * headDim * positions;
    for (int64_t p = 0; p < positions; ++p) {
        double dot = 0;
        for (int64_t d = 0; d < headDim; ++d) dot += double(xq.floatAt(qBase + d)) * keys.floatAt(kBase + d * positions + p);
        float m = mask ? mask->floatAt(row * positions + p) : 0.0f;
        scores[size_t(p)] = dot / e.scale + m;
        if (p == col) e.dot = dot, e.scaled = dot / e.scale, e.mask = m;
    }
    e.score = scores[size_t(col)];
    e.rowMax = -INFINITY;
    for (double s : scores) e.rowMax = std::max(e.rowMax, s);
    for (double s : scores) {
        if (std::isinf(s)) continue;
        e.sumExp += std::exp(s - e.rowMax);
        e.visible++;
    }
    e.probability = std::isinf(e.score) ? 0.0 : std::exp(e.score - e.rowMax) / e.sumExp;
    return e;
}

}  // namespace llama::viewer
