#pragma once
// Quantizes rows of x (F32) into the 8-bit blocks of activation_blocks.h: per block,
// d = max|x| / 127 and q = round(x / d), so the largest value maps to +-127 exactly.
#include <cstdint>

#include "ml/kernels/activation_blocks.h"

namespace llama::ml::kernels {

// k a multiple of 32 (of 256); writes k / 32 (k / 256) blocks.
void quantizeRowQ8x32(const float* x, int64_t k, BlockQ8x32* out);
void quantizeRowQ8x256(const float* x, int64_t k, BlockQ8x256* out);

}  // namespace llama::ml::kernels
