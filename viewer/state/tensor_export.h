#pragma once
// Writing what the viewer shows to files a learner can load elsewhere: a 2-D slice as CSV,
// a whole tensor as NumPy .npy (float32, same shape; np.load reads it).
#include <string>

#include "tensor/tensor.h"
#include "state/tensor_slice.h"

namespace llama::viewer {

// Throw std::runtime_error naming the path when it cannot be written.
void writeCsv(const std::string& path, const Slice2D& slice);
void writeNpy(const std::string& path, const Tensor& tensor);

}  // namespace llama::viewer
