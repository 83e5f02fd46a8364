#pragma once
// A compact summary of a tensor for logs, the terminal stepper and traces.
#include <limits>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace llama {

struct TensorStats {
    float min = 0, max = 0, mean = 0;
    int64_t negInf = 0;        // count of -inf (masks)
    std::vector<float> first;  // the first few values
};

// Finite values only for min/max/mean; Complex64 uses real parts. Shape-only tensors give {}.
TensorStats computeStats(const Tensor& t, int firstCount = 4);

// Min, max, sum and counts over finite values, fed a row at a time. computeStats reads a tensor
// row by row in memory order, so a buffer that only grows by rows (the KV cache) can carry its
// accumulator on and get, row for row, the summary computeStats would give the whole buffer.
class StatsAccumulator {
public:
    // Adds `rows` contiguous rows of `rowLength` F32 or BF16 elements starting at `data`.
    void addRows(const void* data, DType dtype, int64_t rowLength, int64_t rows);
    // Adds `n` zeros without reading them (a KV cache's rows not yet reached): the summary is the
    // one of adding them one by one.
    void addZeros(int64_t n);
    // The summary of what was added, for `t` (its first values), each element counted `times`.
    TensorStats summary(const Tensor& t, int64_t times, int firstCount = 4) const;

private:
    friend TensorStats computeStats(const Tensor& t, int firstCount);
    static constexpr int kLanes = 8;
    void add(float v);
    template <typename Load> void addRow(Load load, int64_t n, int64_t stride);
    template <typename Load> int64_t visitDistinct(const Tensor& t, Load load);

    // The sum is kept in kLanes interleaved lanes: element k of everything added goes to lane
    // k % kLanes, however the elements were split into calls, so a buffer summed as it grows gets
    // the very sum of summing it whole.
    double laneSum_[kLanes] = {};
    int64_t added_ = 0;  // elements added so far: the next one's lane is added_ % kLanes
    int64_t finite_ = 0, negInf_ = 0;
    float min_ = std::numeric_limits<float>::infinity(), max_ = -std::numeric_limits<float>::infinity();
};
std::string formatStats(const TensorStats& s);

}  // namespace llama
