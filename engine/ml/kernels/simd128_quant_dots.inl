// The quantized decode dot products on WebAssembly SIMD, written once for the simd128 path and
// the relaxed-SIMD one (kernels_simd128.cpp, kernels_relaxed_simd.cpp), which differ in how they
// multiply 16 weights' values by 16 of x's int8 values, adding the products in pairs into 8 int16
// lanes: SignedProducts(w, x) for Q8_0's signed bytes, UnsignedProducts(u, x) for values u in
// [0, 63] (Q4_0's nibbles, Q4_K's, Q6_K's 6-bit values), and so in where Q6_K's values wait
// (below). Which products share a lane is the caller's choice: every use below adds all 8 lanes,
// scaled by one scale, into one block's exact integer sum, so any pairing gives the same sum.
// Internal linkage (x86_kernels.inl says why).
#include "ml/kernels/simd128_parts.inl"

namespace llama::ml::kernels {

namespace {

// Q8_0: 34-byte blocks, f16 d then int8 q[32].
template <v128_t (*SignedProducts)(v128_t, v128_t)>
void dotQ8_0With(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    decodeBlocks<DecodeOps, 1>(
        nx, blocks, out,
        [&]<int NX>(int64_t b, v128_t (*v)[NX]) {
            const v128_t w0 = load(w + 34 * b + 2), w1 = load(w + 34 * b + 18);
            for (int s = 0; s < NX; ++s) {
                const int8_t* xq = x[s * ldx + b].q;
                v[0][s] = wasm_i32x4_add(widen(SignedProducts(w0, load(xq))), widen(SignedProducts(w1, load(xq + 16))));
            }
        },
        [&](int64_t b, int s, const int32_t* t) { return blockTerm(x[s * ldx + b].d, halfAtFromTable(w + 34 * b), t[0]); });
}

// Q4_0: 18-byte blocks, f16 d then 16 bytes: weight i in the low nibble of byte i, i + 16 in its
// high nibble; w = d * (q - 8). The nibbles are multiplied as they are, and the "- 8" of every
// weight taken off the block's integer sum as 8 times x's sum (exact: both are integers).
template <v128_t (*UnsignedProducts)(v128_t, v128_t)>
void dotQ4_0With(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    const v128_t lowNibble = wasm_i8x16_splat(0x0f);
    decodeBlocks<DecodeOps, 1>(
        nx, blocks, out,
        [&]<int NX>(int64_t b, v128_t (*v)[NX]) {
            const v128_t qs = load(w + 18 * b + 2);
            // The high nibbles by a 16-bit shift and the mask (q6kGroups says why).
            const v128_t lo = wasm_v128_and(qs, lowNibble), hi = wasm_v128_and(wasm_u16x8_shr(qs, 4), lowNibble);
            for (int s = 0; s < NX; ++s) {
                const int8_t* xq = x[s * ldx + b].q;
                // 32 products in 8 int16 lanes, 4 a lane: |sum| <= 4 * 15 * 127.
                v[0][s] = widen(wasm_i16x8_add(UnsignedProducts(lo, load(xq)), UnsignedProducts(hi, load(xq + 16))));
            }
        },
        [&](int64_t b, int s, const int32_t* t) {
            const BlockQ8x32& xb = x[s * ldx + b];
            return blockTerm(xb.d, halfAtFromTable(w + 18 * b), t[0] - 8 * xb.sum);
        });
}

// Q4_K: 144-byte super-blocks (quant_blocks.h). Sub-block j has w = d * sc[j] * q - dmin * m[j];
// a block's sums are the scaled products' and the minimums' (sum_j m[j] * two of x's bsums).
template <v128_t (*UnsignedProducts)(v128_t, v128_t)>
void dotQ4_KWith(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out) {
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
                    const v128_t lo = wasm_i16x8_add(UnsignedProducts(wasm_v128_and(q0, lowNibble), load(xq)), UnsignedProducts(wasm_v128_and(q1, lowNibble), load(xq + 16)));
                    const v128_t hi = wasm_i16x8_add(UnsignedProducts(wasm_u8x16_shr(q0, 4), load(xq + 32)), UnsignedProducts(wasm_u8x16_shr(q1, 4), load(xq + 48)));
                    sum = wasm_i32x4_add(sum, wasm_i32x4_add(scaledSum(lo, int(sc >> (16 * pair)) & 0xff), scaledSum(hi, int(sc >> (16 * pair + 8)) & 0xff)));
                }
                v[0][s] = sum;
                v[1][s] = wasm_i32x4_add(wasm_i32x4_dot_i16x8(load(xb.bsums), mLo), wasm_i32x4_dot_i16x8(load(xb.bsums + 8), mHi));
            }
        },
        [&](int64_t b, int s, const int32_t* t) {
            const uint8_t* blk = w + 144 * b;
            return blockTerm(x[s * ldx + b].d, halfAtFromTable(blk), t[0], halfAtFromTable(blk + 2), t[1]);
        });
}

// Q6_K: 210-byte super-blocks (quant_blocks.h), w = d * scale[g] * (q - 32) in group g of 16.
// The values are unpacked four groups at a time (q6kGroups) and either used at once (InRegisters:
// the relaxed path, whose products take one instruction) or stored once for every x row and loaded
// a group at a time (simd128: with its extmuls' temporaries the values in registers made V8's code
// 1.4x slower). Each group's scale is splat from an int16 copy of the 16 (v128.load16_splat, one
// instruction where a byte's read, move and broadcast took three).
template <v128_t (*UnsignedProducts)(v128_t, v128_t), bool InRegisters>
void dotQ6_KWith(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    decodeBlocks<DecodeOps, 1>(
        nx, blocks, out,
        [&]<int NX>(int64_t b, v128_t (*v)[NX]) {
            const uint8_t* blk = w + 210 * b;
            const v128_t scales8 = load(blk + 192);
            const v128_t scalesLo = wasm_i16x8_extend_low_i8x16(scales8), scalesHi = wasm_i16x8_extend_high_i8x16(scales8);
            alignas(16) int16_t scales[16];
            wasm_v128_store(scales, scalesLo);
            wasm_v128_store(scales + 8, scalesHi);
            // A group's 16 products in 8 int16 lanes, 2 a lane (|sum| <= 2 * 63 * 127), times its scale.
            auto group = [&](v128_t q, const int8_t* xq, int g) {
                return wasm_i32x4_dot_i16x8(UnsignedProducts(q, load(xq + 16 * g)), wasm_v128_load16_splat(scales + g));
            };
            v128_t sum[NX];
            // The "- 32" of every weight: the sum starts from -32 * sum_g scale[g] * sum(x in group g).
            for (int s = 0; s < NX; ++s) {
                const BlockQ8x256& xb = x[s * ldx + b];
                sum[s] = wasm_i32x4_mul(wasm_i32x4_add(wasm_i32x4_dot_i16x8(load(xb.bsums), scalesLo), wasm_i32x4_dot_i16x8(load(xb.bsums + 8), scalesHi)),
                                        wasm_i32x4_splat(-32));
            }
            if constexpr (InRegisters) {
                for (int half = 0; half < 2; ++half)
                    for (int c = 0; c < 2; ++c) {
                        v128_t q[4];
                        q6kGroups(blk, half, c, q);
                        const int g = 8 * half + c;
                        for (int s = 0; s < NX; ++s) {
                            const int8_t* xq = x[s * ldx + b].q;
                            sum[s] = wasm_i32x4_add(sum[s], wasm_i32x4_add(wasm_i32x4_add(group(q[0], xq, g), group(q[1], xq, g + 2)),
                                                                           wasm_i32x4_add(group(q[2], xq, g + 4), group(q[3], xq, g + 6))));
                        }
                    }
            } else {
                alignas(16) uint8_t values[256];  // once for every x row, in natural order
                for (int half = 0; half < 2; ++half)
                    for (int c = 0; c < 2; ++c) {
                        v128_t q[4];
                        q6kGroups(blk, half, c, q);
                        for (int i = 0; i < 4; ++i) wasm_v128_store(values + 128 * half + 16 * c + 32 * i, q[i]);
                    }
                for (int s = 0; s < NX; ++s)
                    for (int g = 0; g < 16; ++g) sum[s] = wasm_i32x4_add(sum[s], group(load(values + 16 * g), x[s * ldx + b].q, g));
            }
            for (int s = 0; s < NX; ++s) v[0][s] = sum[s];
        },
        [&](int64_t b, int s, const int32_t* t) { return blockTerm(x[s * ldx + b].d, halfAtFromTable(w + 210 * b + 208), t[0]); });
}

}  // namespace
}  // namespace llama::ml::kernels
