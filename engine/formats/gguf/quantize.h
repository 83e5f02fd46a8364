#pragma once
// Our quantizers for the block formats of quant_blocks.h (used by the GGUF converter).
// Q8_0 and Q4_0 are the formats' plain definitions: one scale per 32 weights chosen so the
// largest magnitude lands on the end of the integer range. Q4_K and Q6_K search a few
// candidate scales per sub-block and keep the one with the smallest squared error; that is
// simpler than llama.cpp's (which iterates weighted least-squares fits of scale and min,
// optionally with an importance matrix), so our K-quants are somewhat less accurate.
#include <cstdint>
#include <vector>

#include "tensor/dtype.h"

namespace llama {

// Encodes `count` floats (a multiple of dtypeBlockSize(t)) as type t (also F32, BF16, F16).
std::vector<uint8_t> quantize(DType t, const float* x, int64_t count);

}  // namespace llama
