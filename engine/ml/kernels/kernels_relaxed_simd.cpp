// The relaxed-SIMD path (the browser module built with -mrelaxed-simd, loaded where the browser
// validates relaxed SIMD): the simd128 path with the quantized decode dot products on
// i16x8.relaxed_dot_i8x16_i7x16_s, which multiplies 16 int8 values by 16 7-bit ones and adds the
// products in pairs, one instruction where simd128 takes two extmuls and an add.
//
// Relaxed instructions may give different results on different hardware; this one only where its
// second operand has a lane above 127 (read as signed or as unsigned) or a pair's sum leaves
// int16 (saturated or wrapped). Neither can happen here: the second operand is a Q4_0 or Q4_K
// nibble (0..15), a Q6_K value before its -32 (0..63), or a part of x (below, 0..127), so every
// lane is in [0, 127]; and a pair's sum is at most 2 * 128 * 127 = 32512 in magnitude. Each lane
// is then the exact integer sum of its two products on every engine, the block's integer sum is
// the one simd128 forms with other pairs, and its float term, computed as before, has the same
// bits (kernel_set.h). f32x4.relaxed_madd is not used: the canonical arithmetic rounds a product
// before adding it, a fused multiply-add does not.
// The int16 panels' unpacking (portable_parts.inl, through the file below) is simd128's: this path
// takes simd128's prefill panels as they are.
#pragma clang diagnostic ignored "-Wunused-function"
#include "ml/kernels/simd128_quant_dots.inl"

#if !defined(__wasm_relaxed_simd__)
#error "kernels_relaxed_simd.cpp needs -mrelaxed-simd (clang 19: make web, docs/web.md)"
#endif

namespace llama::ml::kernels {

namespace {

// u (bytes in [0, 127]) times x (int8), pairs of products added into int16 lanes.
inline v128_t relaxedProducts16(v128_t u, v128_t x) { return wasm_i16x8_relaxed_dot_i8x16_i7x16(x, u); }
// Q8_0's signed weights w times x: x's int8 values (in [-127, 127]: activation_quant.cpp never
// makes -128, whose negation would not fit) split into their positive and negative parts, each in
// [0, 127], which the relaxed instruction's 7-bit operand takes, and w.x = w.x+ - w.x-. Each
// instruction's pair sum is at most 2 * 128 * 127 = 32512 in magnitude, and so is the difference:
// exact in int16 on every engine.
inline v128_t relaxedSignedProducts16(v128_t w, v128_t x) {
    const v128_t zero = wasm_i8x16_splat(0);
    const v128_t positive = wasm_i8x16_max(x, zero), negative = wasm_i8x16_max(wasm_i8x16_neg(x), zero);
    return wasm_i16x8_sub(wasm_i16x8_relaxed_dot_i8x16_i7x16(w, positive), wasm_i16x8_relaxed_dot_i8x16_i7x16(w, negative));
}

void dotQ8_0(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    dotQ8_0With<relaxedSignedProducts16>(w, x, ldx, nx, blocks, out);
}
void dotQ4_0(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    dotQ4_0With<relaxedProducts16>(w, x, ldx, nx, blocks, out);
}

void dotQ4_K(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    dotQ4_KWith<relaxedProducts16>(w, x, ldx, nx, blocks, out);
}
void dotQ6_K(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    dotQ6_KWith<relaxedProducts16, true>(w, x, ldx, nx, blocks, out);
}

}  // namespace

const KernelSet* relaxedSimdKernels() {
    static const KernelSet set = [] {
        KernelSet s = *simd128Kernels();
        s.name = "relaxed-simd";
        s.dotQ8_0 = dotQ8_0;
        s.dotQ4_0 = dotQ4_0;
        s.dotQ4_K = dotQ4_K;
        s.dotQ6_K = dotQ6_K;
        return s;
    }();
    return &set;
}

}  // namespace llama::ml::kernels
