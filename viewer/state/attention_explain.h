#pragma once
// The arithmetic behind one attention probability, recomputed from the tensors the
// `transposes` stage captured: score = q·k / sqrt(HeadDim) + mask, then the softmax of its row.
// The engine rounds to bfloat16 between steps, so the recomputed values (float/double here)
// agree with the captured ones to about 2-3 significant digits; the panel shows both.
#include <optional>
#include <vector>

#include "tensor/tensor.h"

namespace llama::viewer {

struct CellExplanation {
    int head = 0, row = 0, col = 0;
    int headDim = 0;
    double dot = 0;       // q · k over HeadDim products
    float scale = 0;      // sqrt(HeadDim) rounded to bfloat16, as the engine divides by it
    double scaled = 0;    // dot / scale
    float mask = 0;       // 0 or -inf (0 when the step has no mask)
    double score = 0;     // scaled + mask
    double rowMax = 0;    // the largest score in the row (subtracted for numerical stability)
    double sumExp = 0;    // sum over the row of exp(score - rowMax)
    double probability = 0;  // exp(score - rowMax) / sumExp
    int visible = 0;      // columns in the row that are not masked
};

// One query row's arithmetic, every column at once: the softmax needs the whole row, so a page that
// shows every cell computes each row once (linear in the cells, not quadratic per row).
struct RowExplanation {
    int headDim = 0;
    float scale = 0;
    std::vector<double> dot;    // per column
    std::vector<float> mask;    // per column (0 when the step has no mask)
    double rowMax = 0, sumExp = 0;
    int visible = 0;

    double scaled(size_t col) const { return dot[col] / scale; }
    double score(size_t col) const { return scaled(col) + mask[col]; }
    double probability(size_t col) const;
};

// xq: [N_Heads, seqLen, HeadDim]; keys: [N_Heads, HeadDim, positions]; mask: [seqLen, positions]
// or nullptr. Throws std::out_of_range for a cell outside the tensors and std::invalid_argument
// when they do not fit each other (the trace reader refuses such traces first).
RowExplanation explainAttentionRow(const Tensor& xq, const Tensor& keys, const Tensor* mask, int head, int row);
CellExplanation explainAttentionCell(const Tensor& xq, const Tensor& keys, const Tensor* mask, int head, int row, int col);

}  // namespace llama::viewer
