#pragma once
// Quantizes rows of x (F32) into the 8-bit blocks of activation_blocks.h: per block,
// d = max|x| / 127 and q = round(x / d), so the largest value maps to +-127 exactly.
#include <cstdint>
#include <vector>

#include "ml/kernels/kernel_set.h"

namespace llama::ml::kernels {

// k a multiple of 32 (of 256); writes k / 32 (k / 256) blocks.
void quantizeRowQ8x32(const float* x, int64_t k, BlockQ8x32* out);
void quantizeRowQ8x256(const float* x, int64_t k, BlockQ8x256* out);

// Rows of x quantized the same way (blocks of blockSize, 32 or 256) and interleaved `lanes` rows
// at a time for KernelSet::panel; the last group is padded with zero rows.
struct PackedActivations {
    int lanes = 0;
    int64_t k = 0, blocks = 0, groups = 0;
    std::vector<int16_t> q, sums;
    std::vector<uint8_t> bytes;  // packActivationBytes' q, packActivationsSigned's (as int8)
    std::vector<float> d;
    PackedX group(int64_t g) const;
    PackedXBytes byteGroup(int64_t g) const;
    PackedXSigned signedGroup(int64_t g) const;
};
PackedActivations packActivations(const float* x, int64_t rows, int64_t k, int64_t blockSize, bool withSums, int lanes);
// The same in blocks of 32 for KernelSet::bytePanel: q + 128, four values per lane.
PackedActivations packActivationBytes(const float* x, int64_t rows, int64_t k, int lanes);
// The same in blocks of blockSize for KernelSet::smallValuePanel: q as it is, four values per
// lane, with the sums of every 16 values.
PackedActivations packActivationsSigned(const float* x, int64_t rows, int64_t k, int64_t blockSize, int lanes);

}  // namespace llama::ml::kernels
