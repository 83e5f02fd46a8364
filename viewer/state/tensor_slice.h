#pragma once
// A 2-D slice of an N-D tensor: two axes shown as rows and columns, every other axis fixed at
// an index. The heatmap, attention and mask panels all draw these.
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace llama::viewer {

struct SliceSpec {
    int rowAxis = 0;  // -1: a single row (rank-1 tensors)
    int colAxis = 1;
    std::vector<int64_t> fixed;  // an index for every axis (the row and column entries are ignored)
};

struct Slice2D {
    int64_t rows = 0, cols = 0;
    std::vector<float> values;  // row-major; Complex64 shows real parts
    float at(int64_t r, int64_t c) const { return values[size_t(r * cols + c)]; }
};

// The default view: the last two axes, the others at 0.
SliceSpec defaultSlice(const Tensor& t);
// Clamps axes and indices to the tensor; throws std::invalid_argument for a shape-only tensor.
Slice2D extractSlice(const Tensor& t, SliceSpec spec);

}  // namespace llama::viewer
