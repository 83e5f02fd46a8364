#pragma once
// x quantized to 8 bits, in blocks that line up with the weight formats' blocks (the 8-bit
// side of every integer dot product in kernel_set.h). Plain structs: this header is included
// by the per-instruction-set kernel files, which must not share inline code (kernels_avx2.cpp
// says why).
#include <cstdint>

namespace llama::ml::kernels {

// 32 values, for Q8_0 and Q4_0 weights: x[i] ~ d * q[i]. sum = the sum of q: where a kernel
// offsets every weight to suit its instructions (x86's unsigned Q4_0 nibbles, without "- 8"; the
// VNNI path's "q + 128"), the offset times sum is taken off the block's integer sum.
struct BlockQ8x32 {
    float d;
    int32_t sum;
    int8_t q[32];
};

// 256 values, for the K-quants (Q4_K, Q6_K): x[i] ~ d * q[i]. bsums[j] = the sum of
// q[16j .. 16j + 15], which the K-quants' per-sub-block minimums and offsets multiply.
struct BlockQ8x256 {
    float d;
    int16_t bsums[16];
    int8_t q[256];
};

}  // namespace llama::ml::kernels
