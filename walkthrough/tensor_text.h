#pragma once
// Tensors as text for the terminal stepper's `p` and `top`: an aligned 2-D slice, one row in full,
// the top logits with their pieces.
#include <cstdint>
#include <string>
#include <vector>

#include "tensor/tensor.h"
#include "tokenizer/tokenizer.h"

namespace llama::cli {

// A readable 2-D slice: a 1-D tensor as one row, a 2-D one whole, a 3-D one at [index] (with
// `head`, at head `index` counted from 1, the first dimension being the heads). Columns
// are aligned; past maxRows/maxCols the middle rows/columns are elided with "…". Row and column
// labels, when given (one per row/column), are shown beside the indices (token text).
struct SliceLabels {
    std::vector<std::string> rows, cols;
};
std::string formatTensorSlice(const std::string& name, const Tensor& t, int64_t index = 0, int maxRows = 8, int maxCols = 8,
                              const SliceLabels& labels = {}, bool head = false);

// Row `row` of the same slice with every column, 8 values a line after the first one's column
// index, to 6 significant digits: the numbers a student recomputes (a whole RMSNorm row).
std::string formatTensorRow(const std::string& name, const Tensor& t, int64_t index, int64_t row, bool head = false);

// The k largest logits of the last row of `logits` ([VocabSize] or [seqLen, VocabSize]), with
// their probabilities (softmax at temperature 1) and token pieces.
std::string formatTopLogits(const Tensor& logits, const Tokenizer& tokenizer, int k);

}  // namespace llama::cli
