#pragma once
// The inner kernels of LinearTransformation: dot products between rows of x (F32) and rows of
// the weights, both contiguous along the reduction dimension k, as they are in
// memory (weights [out, in] are row-major, so no transposed copy is needed).
//
// These are compiled for the build machine (-march=native). dotRow serves F32 weights and the
// reference path; BF16 and quantized weights have run-time dispatched kernels (kernels/).
// dotRow reads one weight row front to back, so consecutive rows form a single sequential
// stream the hardware prefetcher follows best (measured ~10-35% faster than reading 4 or 8 rows
// side by side), and keeps 4 accumulators so the FMA latency never stalls the stream.
// Prefill is compute-bound and works on weights already widened to F32. dotTile reuses each loaded 8-wide block of a weight row for all RX
// x rows and each x block for all RW weight rows: RX*RW FMAs for RX+RW loads. It uses the
// largest tile whose accumulators fit the register file (see linear_transformation.cpp).
#include <cstdint>

#include "ml/op_util.h"

#ifdef __AVX2__
#include <immintrin.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
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

// One SIMD width for dotRow: its register type and the four operations the loop needs. 256
// bits also on AVX-512 builds: dotRow now serves only F32 and F16 weights and the reference
// path (BF16 and block-quantized weights have their own kernels), and an F32 weight stream is
// memory-bound at this width.
#if defined(__AVX2__)
struct Lanes {
    using V = __m256;
    static constexpr int kWidth = 8;
    static V zero() { return _mm256_setzero_ps(); }
    template <class W>
    static V fma(const float* x, const W* w, V acc) { return _mm256_fmadd_ps(_mm256_loadu_ps(x), load8(w), acc); }
    static V add(V a, V b) { return _mm256_add_ps(a, b); }
    static float sum(V v) { return horizontalSum(v); }
};
#elif defined(__wasm_simd128__)
// The browser build: four f32 lanes, a multiply then an add (WebAssembly SIMD has no FMA).
inline v128_t load4(const float* p) { return wasm_v128_load(p); }
inline v128_t load4(const BFloat16* p) {
    const v128_t bits = wasm_v128_load64_zero(p);
    return wasm_i32x4_shl(wasm_u32x4_extend_low_u16x8(bits), 16);
}
template <class W>
inline v128_t load4(const W* p) {
    return wasm_f32x4_make(toF32(p[0]), toF32(p[1]), toF32(p[2]), toF32(p[3]));
}
struct Lanes {
    using V = v128_t;
    static constexpr int kWidth = 4;
    static V zero() { return wasm_f32x4_splat(0.0f); }
    template <class W>
    static V fma(const float* x, const W* w, V acc) { return wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_v128_load(x), load4(w))); }
    static V add(V a, V b) { return wasm_f32x4_add(a, b); }
    static float sum(V v) {
        return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) + (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
    }
};
#endif

// sum over i < k of x[i] * w[i], accumulated in F32.
template <class W>
inline float dotRow(const float* x, const W* w, int64_t k) {
    int64_t i = 0;
    float total = 0.0f;
#if defined(__AVX2__) || defined(__wasm_simd128__)
    constexpr int n = Lanes::kWidth;
    auto s0 = Lanes::zero(), s1 = s0, s2 = s0, s3 = s0;
    for (; i + 4 * n <= k; i += 4 * n) {
        s0 = Lanes::fma(x + i, w + i, s0);
        s1 = Lanes::fma(x + i + n, w + i + n, s1);
        s2 = Lanes::fma(x + i + 2 * n, w + i + 2 * n, s2);
        s3 = Lanes::fma(x + i + 3 * n, w + i + 3 * n, s3);
    }
    for (; i + n <= k; i += n) s0 = Lanes::fma(x + i, w + i, s0);
    total = Lanes::sum(Lanes::add(Lanes::add(s0, s1), Lanes::add(s2, s3)));
#endif
    // The tail (everything without AVX2).
    for (; i < k; ++i) total += x[i] * toF32(w[i]);
    return total;
}

// acc[r][c] = sum over i < k of x[r * ldx + i] * w[c * ldw + i], accumulated in F32.
// Rows are addressed as base + stride so the compiler keeps every row pointer in a register.
template <int RX, int RW>
inline void dotTile(const float* x, int64_t ldx, const float* w, int64_t ldw, int64_t k, float (&acc)[RX][RW]) {
    int64_t i = 0;
#ifdef __AVX2__
    __m256 sum[RX][RW];
    for (int r = 0; r < RX; ++r)
        for (int c = 0; c < RW; ++c) sum[r][c] = _mm256_setzero_ps();
    for (; i + 8 <= k; i += 8) {
        __m256 wv[RW];
        for (int c = 0; c < RW; ++c) wv[c] = _mm256_loadu_ps(w + c * ldw + i);
        for (int r = 0; r < RX; ++r) {
            __m256 xv = _mm256_loadu_ps(x + r * ldx + i);
            for (int c = 0; c < RW; ++c) sum[r][c] = _mm256_fmadd_ps(xv, wv[c], sum[r][c]);
        }
    }
    for (int r = 0; r < RX; ++r)
        for (int c = 0; c < RW; ++c) acc[r][c] = horizontalSum(sum[r][c]);
#elif defined(__wasm_simd128__)
    v128_t sum[RX][RW];
    for (int r = 0; r < RX; ++r)
        for (int c = 0; c < RW; ++c) sum[r][c] = Lanes::zero();
    for (; i + 4 <= k; i += 4) {
        v128_t wv[RW];
        for (int c = 0; c < RW; ++c) wv[c] = wasm_v128_load(w + c * ldw + i);
        for (int r = 0; r < RX; ++r) {
            const v128_t xv = wasm_v128_load(x + r * ldx + i);
            for (int c = 0; c < RW; ++c) sum[r][c] = wasm_f32x4_add(sum[r][c], wasm_f32x4_mul(xv, wv[c]));
        }
    }
    for (int r = 0; r < RX; ++r)
        for (int c = 0; c < RW; ++c) acc[r][c] = Lanes::sum(sum[r][c]);
#else
    for (int r = 0; r < RX; ++r)
        for (int c = 0; c < RW; ++c) acc[r][c] = 0.0f;
#endif
    // The k % 8 (k % 4) tail; everything without AVX2 or WebAssembly SIMD.
    for (; i < k; ++i)
        for (int r = 0; r < RX; ++r)
            for (int c = 0; c < RW; ++c) acc[r][c] += x[r * ldx + i] * w[c * ldw + i];
}

}  // namespace llama::ml::detail
