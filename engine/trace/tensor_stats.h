#pragma once
// A compact summary of a tensor for logs, the terminal stepper and traces.
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
std::string formatStats(const TensorStats& s);

}  // namespace llama
