// The relaxed-SIMD path (the browser module built with -mrelaxed-simd, loaded where the browser
// validates relaxed SIMD): the simd128 path with the K-quants' decode dot products on
// i16x8.relaxed_dot_i8x16_i7x16_s, which multiplies 16 int8 values by 16 7-bit ones and adds the
// products in pairs, one instruction where simd128 takes two extmuls and an add.
//
// Relaxed instructions may give different results on different hardware; this one only where its
// second operand has a lane above 127 (read as signed or as unsigned) or a pair's sum leaves
// int16 (saturated or wrapped). Neither can happen here: the second operand is a Q4_K nibble
// (0..15) or a Q6_K value before its -32 (0..63), so every lane is in [0, 127]; and a pair's sum
// is at most 2 * 128 * 63 = 16128 in magnitude. Each lane is then the exact integer
// x[2i] * u[2i] + x[2i + 1] * u[2i + 1] on every engine, the block's integer sum is the one
// simd128 forms with other pairs, and its float term, computed as before, has the same bits
// (kernel_set.h). f32x4.relaxed_madd is not used: the canonical arithmetic rounds a product
// before adding it, a fused multiply-add does not.
// The int16 panels' unpacking (portable_parts.inl, through the file below) is simd128's: this path
// takes simd128's prefill panels as they are.
#pragma clang diagnostic ignored "-Wunused-function"
#include "ml/kernels/simd128_kquant_dots.inl"

#if !defined(__wasm_relaxed_simd__)
#error "kernels_relaxed_simd.cpp needs -mrelaxed-simd (clang 19: make web, docs/web.md)"
#endif

namespace llama::ml::kernels {

namespace {

// u (bytes in [0, 127]) times x (int8), pairs of products added into int16 lanes.
inline v128_t relaxedProducts16(v128_t u, v128_t x) { return wasm_i16x8_relaxed_dot_i8x16_i7x16(x, u); }

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
        s.dotQ4_K = dotQ4_K;
        s.dotQ6_K = dotQ6_K;
        return s;
    }();
    return &set;
}

}  // namespace llama::ml::kernels
