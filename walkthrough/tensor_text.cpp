#include "tensor_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "generate/sampler.h"
#include "ml/ops.h"
#include "stages/numbering.h"

namespace llama::cli {

namespace {
// Width on screen: UTF-8 continuation bytes take no column ("…" is one).
size_t displayWidth(const std::string& s) {
    return size_t(std::count_if(s.begin(), s.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }));
}

std::string padLeft(const std::string& s, size_t width) { return std::string(width - std::min(width, displayWidth(s)), ' ') + s; }

// Indices to show out of n, -1 where the elided middle goes.
std::vector<int64_t> pickIndices(int64_t n, int max) {
    std::vector<int64_t> out;
    if (n <= max) {
        for (int64_t i = 0; i < n; ++i) out.push_back(i);
        return out;
    }
    for (int64_t i = 0; i < (max + 1) / 2; ++i) out.push_back(i);
    out.push_back(-1);
    for (int64_t i = n - max / 2; i < n; ++i) out.push_back(i);
    return out;
}

// The 2-D slice `p` shows of a 1-D, 2-D or 3-D tensor: its rows, columns, first element and title;
// or, in `error`, why there is none.
struct SliceView {
    int64_t rows = 1, cols = 0, base = 0;
    std::string title, error;
};

SliceView sliceOf(const std::string& name, const Tensor& t, int64_t index, bool head) {
    SliceView v;
    const std::string what = fmt::format("{} {} {}", name, shapeToString(t.shape()), dtypeName(t.dtype()));
    if (!t.hasData()) v.error = what + ": no values (dry run: shapes only)\n";
    else if (t.rank() < 1 || t.rank() > 3) v.error = what + ": only 1-D, 2-D and 3-D tensors can be printed\n";
    else if (head && t.rank() == 3 && (index < 1 || index > t.dim(0)))
        v.error = fmt::format("{}: head {} is out of range (heads are counted from 1: 1-{})\n", what, index, t.dim(0));
    else if (!head && t.rank() == 3 && index >= t.dim(0)) v.error = fmt::format("{}: index {} is out of range (0-{})\n", what, index, t.dim(0) - 1);
    else if (t.rank() < 3 && index != 0) v.error = what + ": an index applies only to 3-D tensors\n";
    if (!v.error.empty()) return v;
    v.cols = t.dim(-1);
    v.title = what;
    if (t.rank() == 2) v.rows = t.dim(0);
    if (t.rank() == 3) {
        v.rows = t.dim(1);
        v.base = (head ? index - 1 : index) * v.rows * v.cols;
        v.title += head ? ", " + headLabel(int(index - 1)) : fmt::format(", [{}]", index);
    }
    if (t.dtype() == DType::Complex64) v.title += " (real parts)";
    return v;
}
}  // namespace

std::string formatTensorRow(const std::string& name, const Tensor& t, int64_t index, int64_t row, bool head) {
    const SliceView v = sliceOf(name, t, index, head);
    if (!v.error.empty()) return v.error;
    if (row >= v.rows) return fmt::format("{}: row {} is out of range (0-{})\n", v.title, row, v.rows - 1);
    std::string out = fmt::format("{}, row {}: all {} columns\n", v.title, row, v.cols);
    for (int64_t c = 0; c < v.cols; ++c) {
        if (c % 8 == 0) out += fmt::format("{:>5}:", c);
        const float x = t.floatAt(v.base + row * v.cols + c);
        out += t.dtype() == DType::I32 ? fmt::format(" {:>12}", int64_t(x)) : fmt::format(" {:>12.6g}", x);
        if (c % 8 == 7 || c + 1 == v.cols) out += "\n";
    }
    return out;
}

std::string formatTensorSlice(const std::string& name, const Tensor& t, int64_t index, int maxRows, int maxCols, const SliceLabels& labels,
                              bool head) {
    const SliceView v = sliceOf(name, t, index, head);
    if (!v.error.empty()) return v.error;
    const int64_t rows = v.rows, cols = v.cols, base = v.base;
    const std::string& title = v.title;

    const auto rowIdx = pickIndices(rows, maxRows), colIdx = pickIndices(cols, maxCols);
    // table[0] is the column header; column 0 the row labels.
    std::vector<std::vector<std::string>> table(rowIdx.size() + 1, std::vector<std::string>(colIdx.size() + 1));
    const bool labelled = labels.rows.size() == size_t(rows) && labels.cols.size() == size_t(cols);
    for (size_t c = 0; c < colIdx.size(); ++c)
        table[0][c + 1] = colIdx[c] < 0 ? "…" : std::to_string(colIdx[c]) + (labelled ? " " + labels.cols[colIdx[c]] : "");
    for (size_t r = 0; r < rowIdx.size(); ++r) {
        table[r + 1][0] = rowIdx[r] < 0 ? "…" : fmt::format("[{}]", rowIdx[r]) + (labelled ? " " + labels.rows[rowIdx[r]] : "");
        for (size_t c = 0; c < colIdx.size(); ++c) {
            if (rowIdx[r] < 0 || colIdx[c] < 0) {
                table[r + 1][c + 1] = "…";
                continue;
            }
            float v = t.floatAt(base + rowIdx[r] * cols + colIdx[c]);
            table[r + 1][c + 1] = t.dtype() == DType::I32 ? std::to_string(int64_t(v)) : fmt::format("{:.4g}", v);
        }
    }
    std::vector<size_t> width(colIdx.size() + 1, 0);
    for (const auto& row : table)
        for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], displayWidth(row[c]));
    std::string out = title + "\n";
    for (const auto& row : table) {
        std::string line;
        for (size_t c = 0; c < row.size(); ++c) {
            // Token labels read better left-aligned; numbers right-aligned.
            if (c == 0 && labelled) line += row[c] + std::string(width[c] - displayWidth(row[c]), ' ');
            else line += (c ? "  " : "") + padLeft(row[c], width[c]);
        }
        out += line + "\n";
    }
    return out;
}

std::string formatTopLogits(const Tensor& logits, const Tokenizer& tokenizer, int k) {
    if (!logits.hasData()) return "no logits: a dry run computes shapes only\n";
    const int64_t vocab = logits.dim(-1), rows = logits.numel() / vocab;
    // The last row, as the sampler sees it; its probabilities at temperature 1.
    const Tensor row = ml::Reshape(ml::Slice(ml::Reshape(logits, {rows, vocab}), rows - 1, rows), {vocab});
    const auto top = Sampler(SamplingSettings{}).topTokens(row, k);
    std::string out = fmt::format("top {} of {} logits{}:\n  rank      id     logit    prob  piece\n", top.size(), vocab,
                                  logits.rank() == 2 ? " (the last position's row)" : "");
    for (size_t i = 0; i < top.size(); ++i)
        out += fmt::format("  {:>4}  {:>6}  {:>8.4f}  {:.4f}  \"{}\"\n", i + 1, top[i].id, top[i].logit, top[i].probability,
                           tokenizer.pieceForDisplay(top[i].id));
    return out;
}

}  // namespace llama::cli
