// The WebAssembly SIMD path (the browser build, -msimd128): the generic path's arithmetic in
// 128-bit lanes, four f32 or int32 at a time; for quantized weights the same bits (kernel_set.h's
// contract). Without a fused multiply-add in WebAssembly SIMD, F32 products are a multiply then
// an add.
#include <wasm_simd128.h>

#include "ml/kernels/portable_parts.inl"

namespace llama::ml::kernels {

namespace {

// Eight bf16 as two f32x4: a bf16 is the top half of an f32.
inline v128_t bf16Low(v128_t w) { return wasm_i32x4_shl(wasm_u32x4_extend_low_u16x8(w), 16); }
inline v128_t bf16High(v128_t w) { return wasm_i32x4_shl(wasm_u32x4_extend_high_u16x8(w), 16); }

// Four canonical partials p[l] for lanes l (p[j] += p[j + w] for w = 2, 1).
inline float sumF32(v128_t v) {
    return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 2)) + (wasm_f32x4_extract_lane(v, 1) + wasm_f32x4_extract_lane(v, 3));
}
inline v128_t madd(v128_t acc, v128_t a, v128_t b) { return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b)); }

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

// The canonical dot (ml/dot_kernels.h) with its 16 partials in four vectors: in order (v[q]
// holds partials 4q to 4q + 3; the tree adds v[0] + v[2] and v[1] + v[3], then those, then
// lanes), or split into even and odd values (below). Each loaded weight vector serves all nx
// rows of x (decode streams the weights once).
void dotBF16(const float* x, int64_t ldx, int nx, const uint16_t* w, int64_t k, float* out) {
    v128_t acc[kMaxRows][4];
    for (int s = 0; s < nx; ++s)
        for (int q = 0; q < 4; ++q) acc[s][q] = wasm_f32x4_splat(0.0f);
    int64_t i = 0;
    for (; i + kPartials <= k; i += kPartials) {
        const v128_t w0 = load(w + i), w1 = load(w + i + 8);
        const v128_t wv[4] = {bf16Low(w0), bf16High(w0), bf16Low(w1), bf16High(w1)};
        for (int s = 0; s < nx; ++s)
            for (int q = 0; q < 4; ++q) acc[s][q] = madd(acc[s][q], load(x + s * ldx + i + 4 * q), wv[q]);
    }
    for (int s = 0; s < nx; ++s) {
        float p[kPartials];
        for (int q = 0; q < 4; ++q) wasm_v128_store(p + 4 * q, acc[s][q]);
        out[s] = finishDot(p, x + s * ldx + i, w + i, k - i);
    }
}

// Decode with BF16 x: x and w split alike into their even- and odd-numbered values (each one
// instruction: a shift into the top half of the f32 lane, or clearing the low half), so even
// pairs with even and odd with odd; widening by extend and shift took twice the instructions
// (bundled model decode from about 360 to 470 tok/s under Node). Of 16 values, e0 and o0 hold
// partials 0, 2, 4, 6 and 1, 3, 5, 7, e1 and o1 partials 8-14 and 9-15: the tree's first step is
// e0 + e1 and o0 + o1, its last the even sum plus the odd one.
inline v128_t bf16Even(v128_t v) { return wasm_i32x4_shl(v, 16); }
inline v128_t bf16Odd(v128_t v) { return wasm_v128_and(v, wasm_i32x4_splat(int32_t(0xffff0000u))); }

float dotBF16Pair(const uint16_t* x, const uint16_t* w, int64_t k) {
    v128_t e0 = wasm_f32x4_splat(0.0f), o0 = e0, e1 = e0, o1 = e0;
    int64_t i = 0;
    for (; i + kPartials <= k; i += kPartials) {
        const v128_t w0 = load(w + i), w1 = load(w + i + 8), x0 = load(x + i), x1 = load(x + i + 8);
        e0 = madd(e0, bf16Even(x0), bf16Even(w0));
        o0 = madd(o0, bf16Odd(x0), bf16Odd(w0));
        e1 = madd(e1, bf16Even(x1), bf16Even(w1));
        o1 = madd(o1, bf16Odd(x1), bf16Odd(w1));
    }
    if (i == k) return sumF32(wasm_f32x4_add(e0, e1)) + sumF32(wasm_f32x4_add(o0, o1));
    float p[kPartials];
    wasm_v128_store(p, wasm_i32x4_shuffle(e0, o0, 0, 4, 1, 5));
    wasm_v128_store(p + 4, wasm_i32x4_shuffle(e0, o0, 2, 6, 3, 7));
    wasm_v128_store(p + 8, wasm_i32x4_shuffle(e1, o1, 0, 4, 1, 5));
    wasm_v128_store(p + 12, wasm_i32x4_shuffle(e1, o1, 2, 6, 3, 7));
    return finishDot(p, x + i, w + i, k - i);
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

// Q8_0: 34-byte blocks, f16 d then int8 q[32].
void dotQ8_0(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    decodeBlocks<DecodeOps, 1>(
        nx, blocks, out,
        [&]<int NX>(int64_t b, v128_t (*v)[NX]) {
            const v128_t w0 = load(w + 34 * b + 2), w1 = load(w + 34 * b + 18);
            for (int s = 0; s < NX; ++s) {
                const int8_t* xq = x[s * ldx + b].q;
                v[0][s] = wasm_i32x4_add(widen(products16(w0, load(xq))), widen(products16(w1, load(xq + 16))));
            }
        },
        [&](int64_t b, int s, const int32_t* t) { return blockTerm(x[s * ldx + b].d, halfAt(w + 34 * b), t[0]); });
}

// Q4_0: 18-byte blocks, f16 d then 16 bytes: weight i in the low nibble of byte i, i + 16 in
// its high nibble; w = d * (q - 8).
void dotQ4_0(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    const v128_t lowNibble = wasm_i8x16_splat(0x0f), eight = wasm_i8x16_splat(8);
    decodeBlocks<DecodeOps, 1>(
        nx, blocks, out,
        [&]<int NX>(int64_t b, v128_t (*v)[NX]) {
            const v128_t qs = load(w + 18 * b + 2);
            const v128_t lo = wasm_i8x16_sub(wasm_v128_and(qs, lowNibble), eight), hi = wasm_i8x16_sub(wasm_u8x16_shr(qs, 4), eight);
            for (int s = 0; s < NX; ++s) {
                const int8_t* xq = x[s * ldx + b].q;
                // 32 products in 8 int16 lanes, 4 a lane: |sum| <= 4 * 8 * 127.
                v[0][s] = widen(wasm_i16x8_add(products16(lo, load(xq)), products16(hi, load(xq + 16))));
            }
        },
        [&](int64_t b, int s, const int32_t* t) { return blockTerm(x[s * ldx + b].d, halfAt(w + 18 * b), t[0]); });
}

// Q4_K: 144-byte super-blocks (quant_blocks.h). Sub-block j has w = d * sc[j] * q - dmin * m[j];
// a block's sums are the scaled products' and the minimums' (sum_j m[j] * two of x's bsums).
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

void dotQ4_K(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    const v128_t lowNibble = wasm_i8x16_splat(0x0f);
    decodeBlocks<DecodeOps, 2>(
        nx, blocks, out,
        [&]<int NX>(int64_t b, v128_t (*v)[NX]) {
            const uint8_t* blk = w + 144 * b;
            uint64_t sc, m;
            unpackScalesMins(blk + 4, sc, m);
            // m[j] pairs with x's bsums[2j] and bsums[2j + 1]: each min twice, as int16.
            const v128_t m8 = wasm_i64x2_make(int64_t(m), 0);
            const v128_t mPairs = wasm_i8x16_shuffle(m8, m8, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
            const v128_t mLo = wasm_u16x8_extend_low_u8x16(mPairs), mHi = wasm_u16x8_extend_high_u8x16(mPairs);
            const uint8_t* qs = blk + 16;
            for (int s = 0; s < NX; ++s) {
                const BlockQ8x256& xb = x[s * ldx + b];
                v128_t sum = wasm_i32x4_splat(0);
                for (int pair = 0; pair < 4; ++pair) {
                    const v128_t q0 = load(qs + 32 * pair), q1 = load(qs + 32 * pair + 16);
                    const int8_t* xq = xb.q + 64 * pair;
                    // A sub-block's 32 products in 8 int16 lanes, 4 a lane: |sum| <= 4 * 15 * 127.
                    const v128_t lo = wasm_i16x8_add(products16(wasm_v128_and(q0, lowNibble), load(xq)), products16(wasm_v128_and(q1, lowNibble), load(xq + 16)));
                    const v128_t hi = wasm_i16x8_add(products16(wasm_u8x16_shr(q0, 4), load(xq + 32)), products16(wasm_u8x16_shr(q1, 4), load(xq + 48)));
                    sum = wasm_i32x4_add(sum, wasm_i32x4_add(scaledSum(lo, int(sc >> (16 * pair)) & 0xff), scaledSum(hi, int(sc >> (16 * pair + 8)) & 0xff)));
                }
                v[0][s] = sum;
                v[1][s] = wasm_i32x4_add(wasm_i32x4_dot_i16x8(load(xb.bsums), mLo), wasm_i32x4_dot_i16x8(load(xb.bsums + 8), mHi));
            }
        },
        [&](int64_t b, int s, const int32_t* t) {
            const uint8_t* blk = w + 144 * b;
            return blockTerm(x[s * ldx + b].d, halfAt(blk), t[0], halfAt(blk + 2), t[1]);
        });
}

// Q6_K's 256 6-bit values in natural order (q6kValues' layout), 16 at a time: low 4 bits from
// ql, bits 4-5 from qh.
inline void q6kValuesSimd(const uint8_t* w, uint8_t* q) {
    const v128_t low4 = wasm_i8x16_splat(0x0f), bits45 = wasm_i8x16_splat(0x30);
    for (int half = 0; half < 2; ++half)
        for (int c = 0; c < 2; ++c) {
            const v128_t qlA = load(w + 64 * half + 16 * c), qlB = load(w + 64 * half + 32 + 16 * c);
            const v128_t qh = load(w + 128 + 32 * half + 16 * c);
            uint8_t* y = q + 128 * half + 16 * c;
            wasm_v128_store(y, wasm_v128_or(wasm_v128_and(qlA, low4), wasm_v128_and(wasm_i8x16_shl(qh, 4), bits45)));
            wasm_v128_store(y + 32, wasm_v128_or(wasm_v128_and(qlB, low4), wasm_v128_and(wasm_i8x16_shl(qh, 2), bits45)));
            wasm_v128_store(y + 64, wasm_v128_or(wasm_u8x16_shr(qlA, 4), wasm_v128_and(qh, bits45)));
            wasm_v128_store(y + 96, wasm_v128_or(wasm_u8x16_shr(qlB, 4), wasm_v128_and(wasm_u8x16_shr(qh, 2), bits45)));
        }
}

// Q6_K: 210-byte super-blocks (quant_blocks.h), w = d * scale[g] * (q - 32) in group g of 16.
void dotQ6_K(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    decodeBlocks<DecodeOps, 1>(
        nx, blocks, out,
        [&]<int NX>(int64_t b, v128_t (*v)[NX]) {
            const uint8_t* blk = w + 210 * b;
            const auto* scales = reinterpret_cast<const int8_t*>(blk + 192);
            const v128_t scales8 = load(scales);
            const v128_t scalesLo = wasm_i16x8_extend_low_i8x16(scales8), scalesHi = wasm_i16x8_extend_high_i8x16(scales8);
            alignas(16) uint8_t q[256];  // once for every x row
            q6kValuesSimd(blk, q);
            for (int s = 0; s < NX; ++s) {
                const BlockQ8x256& xb = x[s * ldx + b];
                // The "- 32" of every weight: the sum starts from -32 * sum_g scale[g] * sum(x in group g).
                v128_t sum = wasm_i32x4_mul(wasm_i32x4_add(wasm_i32x4_dot_i16x8(load(xb.bsums), scalesLo), wasm_i32x4_dot_i16x8(load(xb.bsums + 8), scalesHi)),
                                            wasm_i32x4_splat(-32));
                // A group's 16 products in 8 int16 lanes, 2 a lane: |sum| <= 2 * 63 * 127.
                for (int g = 0; g < 16; ++g) sum = wasm_i32x4_add(sum, scaledSum(products16(load(q + 16 * g), load(xb.q + 16 * g)), scales[g]));
                v[0][s] = sum;
            }
        },
        [&](int64_t b, int s, const int32_t* t) { return blockTerm(x[s * ldx + b].d, halfAt(w + 210 * b + 208), t[0]); });
}

// Quantized prefill (kernel_set.h): four x rows per vector. A weight pair (w[i], w[i + 1]) is
// broadcast to every lane and i32x4.dot_i16x8 adds both products of each lane's x pair at once;
// four weight rows per pass over x, so each x load serves four of them (one row a pass before:
// prefill of a TinyLlama-shaped Q4_K file went from 19 to 24 tok/s under Node).
constexpr int kLanes = 4, kPanelRows = 4;
using VecI = v128_t;
using VecF = v128_t;
inline VecI loadI(const int16_t* p) { return load(p); }
inline VecI broadcastPair(const int16_t* p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return wasm_i32x4_splat(v);
}
inline VecI addPairProducts(VecI acc, VecI w, VecI x) { return wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(w, x)); }
inline VecI zeroI() { return wasm_i32x4_splat(0); }
inline VecF zeroF() { return wasm_f32x4_splat(0.0f); }
inline VecF toF(VecI v) { return wasm_f32x4_convert_i32x4(v); }
inline VecF loadF(const float* p) { return load(p); }
inline VecF splatF(float s) { return wasm_f32x4_splat(s); }
inline VecF addF(VecF a, VecF b) { return wasm_f32x4_add(a, b); }
inline VecF subF(VecF a, VecF b) { return wasm_f32x4_sub(a, b); }
inline VecF mulF(VecF a, VecF b) { return wasm_f32x4_mul(a, b); }
inline void storeF(float* p, VecF v) { wasm_v128_store(p, v); }

}  // namespace
}  // namespace llama::ml::kernels

#include "ml/kernels/int16_panel_multiply.inl"

namespace llama::ml::kernels {

namespace {

const KernelSet kSimd128{"simd128", dotBF16, dotBF16Pair, dotQ8_0, dotQ4_0, dotQ4_K, dotQ6_K, nullptr, nullptr, nullptr, kLanes, kPanelRows, unpackRows, panel, nullptr, nullptr};

}  // namespace

const KernelSet* simd128Kernels() { return &kSimd128; }

}  // namespace llama::ml::kernels
