// What the WebAssembly SIMD paths share (kernels_simd128.cpp, and kernels_relaxed_simd.cpp in the
// module built with relaxed SIMD): integer lane operations, the decode kernels' reduction, the
// K-quants' unpacking, the BF16 pair dot product and the BF16 prefill tiles. Included by each such
// kernel file; internal linkage (x86_kernels.inl says why kernel files share no inline code).
#pragma once
#include <wasm_simd128.h>

#include "ml/kernels/portable_parts.inl"

namespace llama::ml::kernels {

// Every f16 value as a float, made once when the module starts (kernels_simd128.cpp): WebAssembly
// has no f16 conversion, and the portable one's tests and shifts (halfAt) were about a fifth of
// Q8_0's decode, each of whose 32-value blocks has a scale (the relaxed path's Q8_0 kernel alone
// took 1.15x less time with the table). The same values as halfAt, read from memory.
extern float halfValues[65536];

namespace {

// Sixteen int8 x int8 products added in pairs into eight int16 lanes: exact while two products
// fit (|q * x| <= 128 * 127; Q8_0's two add up to 32512). The 4- and 6-bit weights' products are
// small enough to add more of them in int16 lanes before widening: a K-quant sub-block's scale
// then multiplies them with one i32x4.dot_i16x8 (the scale in every int16 lane; each int32 lane
// gets two scaled sums), where widening every 16 products to int32 and multiplying there took
// four more instructions per 32 weights.
inline v128_t products16(v128_t a, v128_t b) { return wasm_i16x8_add(wasm_i16x8_extmul_low_i8x16(a, b), wasm_i16x8_extmul_high_i8x16(a, b)); }
inline v128_t widen(v128_t sum16) { return wasm_i32x4_extadd_pairwise_i16x8(sum16); }
inline v128_t scaledSum(v128_t sum16, int scale) { return wasm_i32x4_dot_i16x8(sum16, wasm_i16x8_splat(int16_t(scale))); }
inline v128_t load(const void* p) { return wasm_v128_load(p); }

// Four canonical partials p[l] for lanes l (p[j] += p[j + w] for w = 2, 1).
inline float sumF32(v128_t v) {
    return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 2)) + (wasm_f32x4_extract_lane(v, 1) + wasm_f32x4_extract_lane(v, 3));
}

// Decode with BF16 x: x and w split alike into their even- and odd-numbered values (each one
// instruction: a shift into the top half of the f32 lane, or clearing the low half), so even
// pairs with even and odd with odd; widening by extend and shift took twice the instructions
// (bundled model decode from about 360 to 470 tok/s under Node). Of 16 values, e0 and o0 hold
// partials 0, 2, 4, 6 and 1, 3, 5, 7, e1 and o1 partials 8-14 and 9-15: the tree's first step is
// e0 + e1 and o0 + o1, its last the even sum plus the odd one. MulAdd(acc, a, b) adds a * b to
// acc: a product of two BF16 values is exact in F32, so fused or not it gives the same bits
// (kernel_set.h).
inline v128_t bf16Even(v128_t v) { return wasm_i32x4_shl(v, 16); }
inline v128_t bf16Odd(v128_t v) { return wasm_v128_and(v, wasm_i32x4_splat(int32_t(0xffff0000u))); }

// A pair's four vectors (e0, o0, e1, o1 as below) and its k % 16 tail (x and w from the tail's
// start: x as stored or widened) into the canonical sum.
template <class X>
inline float finishEvenOdd(v128_t e0, v128_t o0, v128_t e1, v128_t o1, const X* x, const uint16_t* w, int64_t n) {
    if (n == 0) return sumF32(wasm_f32x4_add(e0, e1)) + sumF32(wasm_f32x4_add(o0, o1));
    float p[kPartials];
    wasm_v128_store(p, wasm_i32x4_shuffle(e0, o0, 0, 4, 1, 5));
    wasm_v128_store(p + 4, wasm_i32x4_shuffle(e0, o0, 2, 6, 3, 7));
    wasm_v128_store(p + 8, wasm_i32x4_shuffle(e1, o1, 0, 4, 1, 5));
    wasm_v128_store(p + 12, wasm_i32x4_shuffle(e1, o1, 2, 6, 3, 7));
    return finishDot(p, x, w, n);
}

template <v128_t (*MulAdd)(v128_t, v128_t, v128_t)>
float dotBF16PairWith(const uint16_t* x, const uint16_t* w, int64_t k) {
    v128_t e0 = wasm_f32x4_splat(0.0f), o0 = e0, e1 = e0, o1 = e0;
    int64_t i = 0;
    for (; i + kPartials <= k; i += kPartials) {
        const v128_t w0 = load(w + i), w1 = load(w + i + 8), x0 = load(x + i), x1 = load(x + i + 8);
        e0 = MulAdd(e0, bf16Even(x0), bf16Even(w0));
        o0 = MulAdd(o0, bf16Odd(x0), bf16Odd(w0));
        e1 = MulAdd(e1, bf16Even(x1), bf16Even(w1));
        o1 = MulAdd(o1, bf16Odd(x1), bf16Odd(w1));
    }
    return finishEvenOdd(e0, o0, e1, o1, x + i, w + i, k - i);
}

// Prefill with BF16 tiles (KernelSet::bf16Rows, the relaxed-SIMD path's; kernels_relaxed_simd.cpp
// says why simd128 keeps its F32 tiles): x rows widened to F32 once per call, each 16 values in
// the order the weights' split gives (even 0-7, odd 0-7, even 8-15, odd 8-15; the k % 16 tail in
// order), so a tile splits only the weights, once for all its x rows, straight from the stored
// BF16 (the F32 tiles widen a block of weights into scratch first and multiply there, and their
// products of F32 x may not be fused).
[[maybe_unused]] inline int64_t evenOddRowLength(int64_t k) { return 2 * k; }  // k floats in 2k words (unused by simd128)
[[maybe_unused]] void evenOddRows(const uint16_t* x, int64_t rows, int64_t k, uint16_t* out) {
    for (int64_t s = 0; s < rows; ++s) {
        const uint16_t* xs = x + s * k;
        float* o = reinterpret_cast<float*>(out) + s * k;
        int64_t i = 0;
        for (; i + kPartials <= k; i += kPartials) {
            const v128_t v0 = load(xs + i), v1 = load(xs + i + 8);
            wasm_v128_store(o + i, bf16Even(v0));
            wasm_v128_store(o + i + 4, bf16Odd(v0));
            wasm_v128_store(o + i + 8, bf16Even(v1));
            wasm_v128_store(o + i + 12, bf16Odd(v1));
        }
        for (; i < k; ++i) o[i] = bf16ToF32(xs[i]);
    }
}

// RX x rows (as evenOddRows left them; rows past nx repeat the last, their sums discarded)
// against RW weight rows (past nw the same): out[r * ldo + c]. Each pair's 16 partials are four
// vectors, as in dotBF16PairWith; the weights are split a half (8 values) at a time, so only the
// accumulators, two weight vectors and one x vector are live.
template <v128_t (*MulAdd)(v128_t, v128_t, v128_t), int RX, int RW>
void evenOddTile(const float* const xr[RX], const uint16_t* const wr[RW], int64_t k, float* out, int64_t ldo, int nx, int nw) {
    v128_t acc[RX][RW][4];
    for (int r = 0; r < RX; ++r)
        for (int c = 0; c < RW; ++c)
            for (int q = 0; q < 4; ++q) acc[r][c][q] = wasm_f32x4_splat(0.0f);
    int64_t i = 0;
    for (; i + kPartials <= k; i += kPartials)
        for (int h = 0; h < 2; ++h)
            for (int c = 0; c < RW; ++c) {
                const v128_t wh = load(wr[c] + i + 8 * h), even = bf16Even(wh), odd = bf16Odd(wh);
                for (int r = 0; r < RX; ++r) {
                    acc[r][c][2 * h] = MulAdd(acc[r][c][2 * h], load(xr[r] + i + 8 * h), even);
                    acc[r][c][2 * h + 1] = MulAdd(acc[r][c][2 * h + 1], load(xr[r] + i + 8 * h + 4), odd);
                }
            }
    for (int r = 0; r < nx; ++r)
        for (int c = 0; c < nw; ++c)
            out[r * ldo + c] = finishEvenOdd(acc[r][c][0], acc[r][c][1], acc[r][c][2], acc[r][c][3], xr[r] + i, wr[c] + i, k - i);
}

// x rows as evenOddRows left them against nw weight rows: RW weight rows at a time (in L1), each
// group of RX x rows passing over them.
template <v128_t (*MulAdd)(v128_t, v128_t, v128_t), int RX, int RW>
void evenOddRowsTimes(const uint16_t* x, int64_t rows, const uint16_t* w, int64_t nw, int64_t k, float* out, int64_t ldo) {
    const float* xf = reinterpret_cast<const float*>(x);
    for (int64_t o = 0; o < nw; o += RW) {
        const int nwt = int(nw - o < RW ? nw - o : RW);
        const uint16_t* wr[RW];
        for (int c = 0; c < RW; ++c) wr[c] = w + (o + (c < nwt ? c : nwt - 1)) * k;
        for (int64_t s = 0; s < rows; s += RX) {
            const int nxt = int(rows - s < RX ? rows - s : RX);
            const float* xr[RX];
            for (int r = 0; r < RX; ++r) xr[r] = xf + (s + (r < nxt ? r : nxt - 1)) * k;
            evenOddTile<MulAdd, RX, RW>(xr, wr, k, out + s * ldo + o, ldo, nxt, nwt);
        }
    }
}

// KernelSet::bf16Rows: tiles of 2 x rows by 1 weight row (8 accumulators). The bundled model's
// prefill (12 tokens, k = 256 and 1024) in chromium 156, relaxed module, medians of 80 runs:
// 1597-1646 tok/s in 2 x 1 tiles; 1472-1487 in 1 x 2; 1333-1368 in 2 x 2 and 3 x 1; 1279-1307
// in 1 x 3; 1196-1242 in 4 x 1 and 1 x 4 (V8 keeps fewer accumulators in registers than the
// x86 tiles do: it spilled some of the 12 of a 1 x 3 tile); the F32 tiles 1190-1207.
template <v128_t (*MulAdd)(v128_t, v128_t, v128_t)>
void bf16RowsWith(const uint16_t* x, int64_t rows, const uint16_t* w, int64_t nw, int64_t k, float* out, int64_t ldo) {
    evenOddRowsTimes<MulAdd, 2, 1>(x, rows, w, nw, k, out, ldo);
}
inline float halfAtFromTable(const uint8_t* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return halfValues[h];
}

// Quantized decode: a block's integer sum with one x row is the total of an i32x4's lanes,
// reduced four blocks at a time by decodeBlocks (block_terms.inl).
struct DecodeOps {
    using V = v128_t;
    static V zero() { return wasm_i32x4_splat(0); }
    // [a0 + a2, b0 + b2, a1 + a3, b1 + b3]
    static V pair(V a, V b) { return wasm_i32x4_add(wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), wasm_i32x4_shuffle(a, b, 2, 6, 3, 7)); }
    // Pairs (a, b) and (c, d) into [a, b, c, d]'s totals.
    static void totals(V ab, V cd, int32_t t[4]) {
        wasm_v128_store(t, wasm_i32x4_add(wasm_i32x4_shuffle(ab, cd, 0, 1, 4, 5), wasm_i32x4_shuffle(ab, cd, 2, 3, 6, 7)));
    }
};

// Q4_K's eight 6-bit scales and eight 6-bit mins (layout in quant_blocks.h) as bytes 0-7 of two
// 64-bit words, by 32-bit word operations (unpackQ4KScales, a call and byte operations per
// block, was a fifth of the decode time on x86, see x86_kernels.inl).
inline void unpackScalesMins(const uint8_t* packed, uint64_t& scales, uint64_t& mins) {
    uint32_t a[3];
    std::memcpy(a, packed, 12);
    const uint32_t low6 = 0x3f3f3f3f, low4 = 0x0f0f0f0f, bits45 = 0x30303030;
    scales = (a[0] & low6) | uint64_t((a[2] & low4) | ((a[0] >> 2) & bits45)) << 32;
    mins = (a[1] & low6) | uint64_t(((a[2] >> 4) & low4) | ((a[1] >> 2) & bits45)) << 32;
}

// Q6_K's 6-bit values (q6kValues' layout) of groups 8 * half + c, + 2, + 4 and + 6 (16 values a
// group): low 4 bits from ql, bits 4-5 from qh. Shifted as 16-bit lanes, then masked: WebAssembly's
// 8-bit shifts have no x86 instruction, and V8 makes each of them from a 16-bit shift and a mask it
// builds every time (with 16-bit shifts Q6_K decode took 1.28x less time, simd128 under Node 20).
inline void q6kGroups(const uint8_t* w, int half, int c, v128_t q[4]) {
    const v128_t low4 = wasm_i8x16_splat(0x0f), bits45 = wasm_i8x16_splat(0x30);
    const v128_t qlA = load(w + 64 * half + 16 * c), qlB = load(w + 64 * half + 32 + 16 * c);
    const v128_t qh = load(w + 128 + 32 * half + 16 * c);
    q[0] = wasm_v128_or(wasm_v128_and(qlA, low4), wasm_v128_and(wasm_i16x8_shl(qh, 4), bits45));
    q[1] = wasm_v128_or(wasm_v128_and(qlB, low4), wasm_v128_and(wasm_i16x8_shl(qh, 2), bits45));
    q[2] = wasm_v128_or(wasm_v128_and(wasm_u16x8_shr(qlA, 4), low4), wasm_v128_and(qh, bits45));
    q[3] = wasm_v128_or(wasm_v128_and(wasm_u16x8_shr(qlB, 4), low4), wasm_v128_and(wasm_u16x8_shr(qh, 2), bits45));
}

}  // namespace
}  // namespace llama::ml::kernels
