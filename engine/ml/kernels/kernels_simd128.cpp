// The WebAssembly SIMD path (the browser build, -msimd128): the generic path's arithmetic in
// 128-bit lanes, four f32 or int32 at a time; for quantized weights the same bits (kernel_set.h's
// contract). Without a fused multiply-add in WebAssembly SIMD, F32 products are a multiply then
// an add.
#include "ml/kernels/simd128_quant_dots.inl"

namespace llama::ml::kernels {

float halfValues[65536];

namespace {

// Eight bf16 as two f32x4: a bf16 is the top half of an f32.
inline v128_t bf16Low(v128_t w) { return wasm_i32x4_shl(wasm_u32x4_extend_low_u16x8(w), 16); }
inline v128_t bf16High(v128_t w) { return wasm_i32x4_shl(wasm_u32x4_extend_high_u16x8(w), 16); }

inline v128_t madd(v128_t acc, v128_t a, v128_t b) { return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b)); }

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

// Decode with BF16 x (simd128_parts.inl): each product rounded, then added.
float dotBF16Pair(const uint16_t* x, const uint16_t* w, int64_t k) { return dotBF16PairWith<madd>(x, w, k); }

// Q8_0 and Q4_0 (simd128_quant_dots.inl): the products as they are, two extmuls and an add; Q4_K
// and Q6_K, their unsigned values multiplied as x's signed ones.
void dotQ8_0(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    dotQ8_0With<products16>(w, x, ldx, nx, blocks, out);
}
void dotQ4_0(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    dotQ4_0With<products16>(w, x, ldx, nx, blocks, out);
}
void dotQ4_K(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    dotQ4_KWith<products16>(w, x, ldx, nx, blocks, out);
}
void dotQ6_K(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    dotQ6_KWith<products16, false>(w, x, ldx, nx, blocks, out);
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

[[maybe_unused]] const bool kHalfValuesMade = [] {
    for (uint32_t h = 0; h < 65536; ++h) halfValues[h] = halfToFloatPortable(uint16_t(h));
    return true;
}();

const KernelSet kSimd128{"simd128", dotBF16, dotBF16Pair, dotQ8_0, dotQ4_0, dotQ4_K, dotQ6_K, nullptr, nullptr, nullptr, kLanes, kPanelRows, unpackRows, panel, nullptr, nullptr, nullptr, nullptr};

}  // namespace

const KernelSet* simd128Kernels() { return &kSimd128; }

}  // namespace llama::ml::kernels
