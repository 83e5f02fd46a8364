#pragma once
// The inner loops of LinearTransformation for F32 weights (and the reference path): dot
// products between rows of x (F32) and rows of the weights, both contiguous along the
// reduction dimension k, as they are in memory (weights [out, in] are row-major, so no
// transposed copy is needed). BF16 and quantized weights have run-time dispatched kernels
// (kernels/); this file is compiled with the rest of the program (-march=native, or -msimd128).
//
// Every float dot product of the engine, here and in kernels/, is the canonical one
// (docs/speed.md, "The same numbers on every machine"), so that every path gives the same bits:
// 16 partial sums, element i added to partial i % 16 in increasing i (the k % 16 tail too), each
// product rounded to F32 before it is added (a multiply then an add: -ffp-contract=off keeps the
// compiler from fusing them, as WebAssembly cannot), then the partials added by the halving tree
// sumPartials. The register layouts below hold those 16 partials: two AVX2 vectors, one AVX-512
// vector, four WebAssembly vectors, or 16 scalars.
#include <cstdint>

#include "ml/op_util.h"

#ifdef __AVX2__
#include <immintrin.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace llama::ml::detail {

constexpr int kPartials = 16;

// The canonical combination of the 16 partials: p[j] += p[j + w] for w = 8, 4, 2, 1.
inline float sumPartials(float (&p)[kPartials]) {
    for (int w = kPartials / 2; w >= 1; w /= 2)
        for (int j = 0; j < w; ++j) p[j] += p[j + w];
    return p[0];
}

// The k % 16 tail into the stored partials, then the tree.
template <class W>
inline float finishDot(float (&p)[kPartials], const float* x, const W* w, int64_t n) {
    for (int64_t j = 0; j < n; ++j) p[j] += x[j] * toF32(w[j]);
    return sumPartials(p);
}

#ifdef __AVX2__
inline __m256 load8(const float* p) { return _mm256_loadu_ps(p); }
// bf16 is the top half of an f32: widen 8 x u16 to u32 and shift them into the high half.
inline __m256 load8(const BFloat16* p) {
    __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
}
inline __m256 mulAdd(__m256 acc, __m256 a, __m256 b) { return _mm256_add_ps(acc, _mm256_mul_ps(a, b)); }

// Partials 0-7 and 8-15.
struct Partials {
    __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
    template <class W>
    void add16(const float* x, const W* w) {
        lo = mulAdd(lo, _mm256_loadu_ps(x), load8(w));
        hi = mulAdd(hi, _mm256_loadu_ps(x + 8), load8(w + 8));
    }
    void store(float (&p)[kPartials]) const {
        _mm256_storeu_ps(p, lo);
        _mm256_storeu_ps(p + 8, hi);
    }
    // The tree in registers (no store-forwarding stall): lo + hi is its first step, then halves.
    float sum() const {
        const __m256 v = _mm256_add_ps(lo, hi);
        __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
    }
};
#elif defined(__wasm_simd128__)
inline v128_t load4(const float* p) { return wasm_v128_load(p); }
inline v128_t load4(const BFloat16* p) {
    const v128_t bits = wasm_v128_load64_zero(p);
    return wasm_i32x4_shl(wasm_u32x4_extend_low_u16x8(bits), 16);
}
inline v128_t mulAdd(v128_t acc, v128_t a, v128_t b) { return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b)); }

// Partials 4q to 4q + 3 in v[q].
struct Partials {
    v128_t v[4] = {wasm_f32x4_splat(0.0f), wasm_f32x4_splat(0.0f), wasm_f32x4_splat(0.0f), wasm_f32x4_splat(0.0f)};
    template <class W>
    void add16(const float* x, const W* w) {
        for (int q = 0; q < 4; ++q) v[q] = mulAdd(v[q], wasm_v128_load(x + 4 * q), load4(w + 4 * q));
    }
    void store(float (&p)[kPartials]) const {
        for (int q = 0; q < 4; ++q) wasm_v128_store(p + 4 * q, v[q]);
    }
    // The tree in registers: v0 + v2 and v1 + v3, their sum, then lanes (0 + 2) + (1 + 3).
    float sum() const {
        const v128_t t = wasm_f32x4_add(wasm_f32x4_add(v[0], v[2]), wasm_f32x4_add(v[1], v[3]));
        return (wasm_f32x4_extract_lane(t, 0) + wasm_f32x4_extract_lane(t, 2)) + (wasm_f32x4_extract_lane(t, 1) + wasm_f32x4_extract_lane(t, 3));
    }
};
#else
struct Partials {
    float p[kPartials] = {};
    template <class W>
    void add16(const float* x, const W* w) {
        for (int j = 0; j < kPartials; ++j) p[j] += x[j] * toF32(w[j]);
    }
    void store(float (&out)[kPartials]) const {
        for (int j = 0; j < kPartials; ++j) out[j] = p[j];
    }
    float sum() const {
        float copy[kPartials];
        store(copy);
        return sumPartials(copy);
    }
};
#endif

// sum over i < k of x[i] * w[i], the canonical way.
template <class W>
inline float dotRow(const float* x, const W* w, int64_t k) {
    Partials acc;
    int64_t i = 0;
    for (; i + kPartials <= k; i += kPartials) acc.add16(x + i, w + i);
    if (i == k) return acc.sum();
    float p[kPartials];
    acc.store(p);
    return finishDot(p, x + i, w + i, k - i);
}

// Prefill: acc[r][c] = dotRow(x + r * ldx, w + c * ldw, k), with each loaded weight vector used
// for all RX x rows and each x vector for all RW weight rows, the RX * RW sets of partials in
// registers (tile sizes in linear_transformation.cpp: as many as the register file holds).
// Rows are addressed as base + stride so the compiler keeps every row pointer in a register.
template <int RX, int RW>
inline void dotTile(const float* x, int64_t ldx, const float* w, int64_t ldw, int64_t k, float (&acc)[RX][RW]) {
    int64_t i = 0;
    float p[RX][RW][kPartials];
#ifdef __AVX512F__
    // One vector holds all 16 partials.
    __m512 sum[RX][RW];
    for (int r = 0; r < RX; ++r)
        for (int c = 0; c < RW; ++c) sum[r][c] = _mm512_setzero_ps();
    for (; i + kPartials <= k; i += kPartials) {
        __m512 wv[RW];
        for (int c = 0; c < RW; ++c) wv[c] = _mm512_loadu_ps(w + c * ldw + i);
        for (int r = 0; r < RX; ++r) {
            const __m512 xv = _mm512_loadu_ps(x + r * ldx + i);
            for (int c = 0; c < RW; ++c) sum[r][c] = _mm512_add_ps(sum[r][c], _mm512_mul_ps(xv, wv[c]));
        }
    }
    if (i == k) {  // the tree in registers: the high half onto the low one, then as Partials::sum
        for (int r = 0; r < RX; ++r)
            for (int c = 0; c < RW; ++c) {
                Partials halves;
                halves.lo = _mm512_castps512_ps256(sum[r][c]);
                halves.hi = _mm512_extractf32x8_ps(sum[r][c], 1);
                acc[r][c] = halves.sum();
            }
        return;
    }
    for (int r = 0; r < RX; ++r)
        for (int c = 0; c < RW; ++c) _mm512_storeu_ps(p[r][c], sum[r][c]);
#elif defined(__AVX2__) || defined(__wasm_simd128__)
    // The partials' vectors a half (or a quarter) at a time: the low eight partials of every
    // pair, then the high eight, so only RW weight vectors and one x vector are live.
#ifdef __AVX2__
    using V = __m256;
    constexpr int n = 8;
    const auto load = [](const float* a) { return _mm256_loadu_ps(a); };
    const auto zero = [] { return _mm256_setzero_ps(); };
    const auto store = [](float* a, V v) { _mm256_storeu_ps(a, v); };
#else
    using V = v128_t;
    constexpr int n = 4;
    const auto load = [](const float* a) { return wasm_v128_load(a); };
    const auto zero = [] { return wasm_f32x4_splat(0.0f); };
    const auto store = [](float* a, V v) { wasm_v128_store(a, v); };
#endif
    constexpr int parts = kPartials / n;
    V sum[RX][RW][parts];
    for (int r = 0; r < RX; ++r)
        for (int c = 0; c < RW; ++c)
            for (int q = 0; q < parts; ++q) sum[r][c][q] = zero();
    for (; i + kPartials <= k; i += kPartials)
        for (int q = 0; q < parts; ++q) {
            V wv[RW];
            for (int c = 0; c < RW; ++c) wv[c] = load(w + c * ldw + i + q * n);
            for (int r = 0; r < RX; ++r) {
                const V xv = load(x + r * ldx + i + q * n);
                for (int c = 0; c < RW; ++c) sum[r][c][q] = mulAdd(sum[r][c][q], xv, wv[c]);
            }
        }
    if (i == k) {  // the tree in registers
        for (int r = 0; r < RX; ++r)
            for (int c = 0; c < RW; ++c) {
                Partials all;
#ifdef __AVX2__
                all.lo = sum[r][c][0], all.hi = sum[r][c][1];
#else
                for (int q = 0; q < parts; ++q) all.v[q] = sum[r][c][q];
#endif
                acc[r][c] = all.sum();
            }
        return;
    }
    for (int r = 0; r < RX; ++r)
        for (int c = 0; c < RW; ++c)
            for (int q = 0; q < parts; ++q) store(p[r][c] + q * n, sum[r][c][q]);
#else
    for (int r = 0; r < RX; ++r)
        for (int c = 0; c < RW; ++c) {
            Partials one;
            for (int64_t j = 0; j + kPartials <= k; j += kPartials) one.add16(x + r * ldx + j, w + c * ldw + j);
            one.store(p[r][c]);
        }
    i = k / kPartials * kPartials;
#endif
    for (int r = 0; r < RX; ++r)
        for (int c = 0; c < RW; ++c) acc[r][c] = finishDot(p[r][c], x + r * ldx + i, w + c * ldw + i, k - i);
}

}  // namespace llama::ml::detail
