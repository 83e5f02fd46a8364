#pragma once
// ggml's block-quantized weight formats, as GGUF files store them (facts from ggml's
// ggml-common.h / ggml-quants.c; this code is our own). A row of k weights is k / blockSize
// blocks laid end to end; every block carries its own scale(s), so a block decodes alone.
//
//   Q8_0  32 weights, 34 bytes: f16 d, int8 q[32];                     w = d * q
//   Q4_0  32 weights, 18 bytes: f16 d, u8 qs[16]; weight j < 16 in the low nibble of qs[j],
//         weight j + 16 in its high nibble;                           w = d * (q - 8)
//   Q4_K  256 weights, 144 bytes: f16 d, f16 dmin, u8 scales[12], u8 qs[128]. Eight sub-blocks
//         of 32, each with a 6-bit scale sc and 6-bit min m packed in `scales`;
//         w = d * sc * q - dmin * m, q 4 bits. qs holds 64 weights per 32 bytes: sub-block
//         2i in the low nibbles, 2i + 1 in the high nibbles.
//   Q6_K  256 weights, 210 bytes: u8 ql[128] (low 4 bits), u8 qh[64] (high 2 bits),
//         int8 scales[16] (one per 16 weights), f16 d;                w = d * scale * (q - 32)
#include <cstddef>
#include <cstdint>

#include "tensor/dtype.h"

namespace llama {

// Decodes `count` consecutive weights of type t starting at block-aligned `blocks`
// (count a multiple of dtypeBlockSize(t); F32/BF16/F16 are accepted too, block size 1).
void dequantize(DType t, const void* blocks, float* out, int64_t count);

// Q4_K's packing of eight 6-bit scales and eight 6-bit mins into 12 bytes: sub-block j < 4
// uses the low 6 bits of bytes j (scale) and j + 4 (min); j >= 4 takes its low 4 bits from
// byte j + 4 (scale: low nibble, min: high nibble) and its top 2 bits from the top bits of
// bytes j - 4 (scale) and j (min).
void unpackQ4KScales(const uint8_t* packed, uint8_t scale[8], uint8_t min[8]);
void packQ4KScales(const uint8_t scale[8], const uint8_t min[8], uint8_t* packed);

}  // namespace llama
