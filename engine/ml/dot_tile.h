#pragma once
// The inner kernel of LinearTransformation: a small tile of dot products between RX rows of x
// (F32) and RW rows of the weights (F32 or BF16 bits), both contiguous along the reduction
// dimension k, as they are in memory (weights [out, in] are row-major, no transposed copy).
//
// Why this shape: each loaded 8-wide block of a weight row is reused for all RX x rows and each
// x block for all RW weight rows, so a tile does RX*RW FMAs for RX+RW loads. Decode (one x row)
// is bound by streaming the weights from memory, and RX=1, RW=4 gives 4 independent
// accumulator chains, enough to hide FMA latency at memory speed. Prefill uses RX=4, RW=3:
// 12 accumulators + 3 weight vectors + 1 x vector = 16 registers, the whole AVX2 register file,
// and 7 loads per 12 FMAs, which keeps the FMA units (not the loads) the limit.
#include <cstdint>

#include "tensor/bfloat16.h"

#ifdef __AVX2__
#include <immintrin.h>
#endif

namespace llama::ml::detail {

#ifdef __AVX2__
inline __m256 load8(const float* p) { return _mm256_loadu_ps(p); }
// bf16 is the top half of an f32: widen 8 x u16 to u32 and shift them into the high half.
inline __m256 load8(const BFloat16* p) {
    __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
}
inline float horizontalSum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
#endif

inline float widen(float v) { return v; }
inline float widen(BFloat16 v) { return v.toFloat(); }

// acc[r][c] = sum over i < k of x[r][i] * w[c][i], accumulated in F32.
template <int RX, int RW, class W>
inline void dotTile(const float* const* x, const W* const* w, int64_t k, float (&acc)[RX][RW]) {
    int64_t i = 0;
#ifdef __AVX2__
    __m256 sum[RX][RW];
    for (int r = 0; r < RX; ++r)
        for (int c = 0; c < RW; ++c) sum[r][c] = _mm256_setzero_ps();
    for (; i + 8 <= k; i += 8) {
        __m256 wv[RW];
        for (int c = 0; c < RW; ++c) wv[c] = load8(w[c] + i);
        for (int r = 0; r < RX; ++r) {
            __m256 xv = _mm256_loadu_ps(x[r] + i);
            for (int c = 0; c < RW; ++c) sum[r][c] = _mm256_fmadd_ps(xv, wv[c], sum[r][c]);
        }
    }
    for (int r = 0; r < RX; ++r)
        for (int c = 0; c < RW; ++c) acc[r][c] = horizontalSum(sum[r][c]);
#else
    for (int r = 0; r < RX; ++r)
        for (int c = 0; c < RW; ++c) acc[r][c] = 0.0f;
#endif
    // The k % 8 tail (everything without AVX2).
    for (; i < k; ++i)
        for (int r = 0; r < RX; ++r)
            for (int c = 0; c < RW; ++c) acc[r][c] += x[r][i] * widen(w[c][i]);
}

}  // namespace llama::ml::detail
