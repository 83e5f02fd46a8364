// The WebAssembly SIMD path (the browser build, -msimd128): the generic path's arithmetic in
// 128-bit lanes, four f32 or int32 at a time. Integer block sums are exact, as on every path, so
// it differs from the generic path only in the order F32 partial sums are added. Without a fused
// multiply-add in WebAssembly SIMD, F32 products are a multiply then an add.
#include <wasm_simd128.h>

#include <cstring>

#include "ml/kernels/kernel_set.h"
#include "tensor/float16.h"

namespace llama::ml::kernels {

namespace {

float halfAt(const uint8_t* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return halfToFloatPortable(h);
}

}  // namespace
}  // namespace llama::ml::kernels

#include "ml/kernels/int16_panels.inl"

namespace llama::ml::kernels {

namespace {

float bf16ToF32(uint16_t v) {
    const uint32_t bits = uint32_t(v) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// Eight bf16 as two f32x4: a bf16 is the top half of an f32.
inline v128_t bf16Low(v128_t w) { return wasm_i32x4_shl(wasm_u32x4_extend_low_u16x8(w), 16); }
inline v128_t bf16High(v128_t w) { return wasm_i32x4_shl(wasm_u32x4_extend_high_u16x8(w), 16); }

inline float sumF32(v128_t v) {
    return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) + (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
}
inline int32_t sumI32(v128_t v) {
    return wasm_i32x4_extract_lane(v, 0) + wasm_i32x4_extract_lane(v, 1) + wasm_i32x4_extract_lane(v, 2) + wasm_i32x4_extract_lane(v, 3);
}
inline v128_t madd(v128_t acc, v128_t a, v128_t b) { return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b)); }

// Sixteen int8 x int8 products, exact in int16 (|product| <= 2^14), added in pairs into four
// int32 lanes. Nibbles and Q6_K's 6-bit values (0..63) are non-negative int8.
inline v128_t dotI8(v128_t a, v128_t b) {
    return wasm_i32x4_add(wasm_i32x4_extadd_pairwise_i16x8(wasm_i16x8_extmul_low_i8x16(a, b)),
                          wasm_i32x4_extadd_pairwise_i16x8(wasm_i16x8_extmul_high_i8x16(a, b)));
}
inline v128_t load(const void* p) { return wasm_v128_load(p); }

void prepareBF16(const float* x, int64_t k, float* prepared) { std::memcpy(prepared, x, size_t(k) * sizeof(float)); }

// Each loaded weight vector serves all nx rows of x (decode streams the weights once).
void dotBF16(const float* x, int64_t ldx, int nx, const uint16_t* w, int64_t k, float* out) {
    v128_t acc[kMaxRows][2];
    for (int s = 0; s < nx; ++s) acc[s][0] = acc[s][1] = wasm_f32x4_splat(0.0f);
    int64_t i = 0;
    for (; i + 8 <= k; i += 8) {
        const v128_t wv = load(w + i);
        const v128_t lo = bf16Low(wv), hi = bf16High(wv);
        for (int s = 0; s < nx; ++s) {
            const float* xs = x + s * ldx + i;
            acc[s][0] = madd(acc[s][0], load(xs), lo);
            acc[s][1] = madd(acc[s][1], load(xs + 4), hi);
        }
    }
    for (int s = 0; s < nx; ++s) {
        float total = sumF32(wasm_f32x4_add(acc[s][0], acc[s][1]));
        for (int64_t j = i; j < k; ++j) total += x[s * ldx + j] * bf16ToF32(w[j]);
        out[s] = total;
    }
}

float dotBF16Pair(const uint16_t* x, const uint16_t* w, int64_t k) {
    v128_t a0 = wasm_f32x4_splat(0.0f), a1 = a0, a2 = a0, a3 = a0;
    int64_t i = 0;
    for (; i + 16 <= k; i += 16) {
        const v128_t w0 = load(w + i), w1 = load(w + i + 8), x0 = load(x + i), x1 = load(x + i + 8);
        a0 = madd(a0, bf16Low(x0), bf16Low(w0));
        a1 = madd(a1, bf16High(x0), bf16High(w0));
        a2 = madd(a2, bf16Low(x1), bf16Low(w1));
        a3 = madd(a3, bf16High(x1), bf16High(w1));
    }
    float total = sumF32(wasm_f32x4_add(wasm_f32x4_add(a0, a1), wasm_f32x4_add(a2, a3)));
    for (; i < k; ++i) total += bf16ToF32(x[i]) * bf16ToF32(w[i]);
    return total;
}

// Q8_0: 34-byte blocks, f16 d then int8 q[32].
void dotQ8_0(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    for (int s = 0; s < nx; ++s) out[s] = 0.0f;
    for (int64_t b = 0; b < blocks; ++b, w += 34) {
        const float dw = halfAt(w);
        const v128_t w0 = load(w + 2), w1 = load(w + 18);
        for (int s = 0; s < nx; ++s) {
            const BlockQ8x32& xb = x[s * ldx + b];
            const int32_t sumi = sumI32(wasm_i32x4_add(dotI8(w0, load(xb.q)), dotI8(w1, load(xb.q + 16))));
            out[s] += dw * xb.d * float(sumi);
        }
    }
}

// Q4_0: 18-byte blocks, f16 d then 16 bytes: weight j in the low nibble of byte j, j + 16 in
// its high nibble; w = d * (q - 8), so the block's dot is d * dx * (sum(q * qx) - 8 * sum(qx)).
void dotQ4_0(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    const v128_t lowNibble = wasm_i8x16_splat(0x0f);
    for (int s = 0; s < nx; ++s) out[s] = 0.0f;
    for (int64_t b = 0; b < blocks; ++b, w += 18) {
        const float dw = halfAt(w);
        const v128_t qs = load(w + 2);
        const v128_t lo = wasm_v128_and(qs, lowNibble), hi = wasm_u8x16_shr(qs, 4);
        for (int s = 0; s < nx; ++s) {
            const BlockQ8x32& xb = x[s * ldx + b];
            const int32_t sumi = sumI32(wasm_i32x4_add(dotI8(lo, load(xb.q)), dotI8(hi, load(xb.q + 16))));
            out[s] += dw * (xb.d * float(sumi) - 8.0f * xb.dsum);
        }
    }
}

// Q4_K: 144-byte super-blocks (quant_blocks.h). Sub-block j has w = d * sc[j] * q - dmin * m[j], so
// its dot is d * sc[j] * sum(q * x) - dmin * m[j] * sum(x): the second sum is two of x's bsums.
void dotQ4_K(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    const v128_t lowNibble = wasm_i8x16_splat(0x0f);
    for (int s = 0; s < nx; ++s) out[s] = 0.0f;
    for (int64_t b = 0; b < blocks; ++b, w += 144) {
        const float d = halfAt(w), dmin = halfAt(w + 2);
        uint8_t sc[8], m[8];
        unpackQ4KScales(w + 4, sc, m);
        const uint8_t* qs = w + 16;
        for (int s = 0; s < nx; ++s) {
            const BlockQ8x256& xb = x[s * ldx + b];
            v128_t sumi = wasm_i32x4_splat(0);
            for (int pair = 0; pair < 4; ++pair) {
                const v128_t q0 = load(qs + 32 * pair), q1 = load(qs + 32 * pair + 16);
                const int8_t* xq = xb.q + 64 * pair;
                const v128_t lo = wasm_i32x4_add(dotI8(wasm_v128_and(q0, lowNibble), load(xq)), dotI8(wasm_v128_and(q1, lowNibble), load(xq + 16)));
                const v128_t hi = wasm_i32x4_add(dotI8(wasm_u8x16_shr(q0, 4), load(xq + 32)), dotI8(wasm_u8x16_shr(q1, 4), load(xq + 48)));
                sumi = wasm_i32x4_add(sumi, wasm_i32x4_add(wasm_i32x4_mul(lo, wasm_i32x4_splat(sc[2 * pair])),
                                                           wasm_i32x4_mul(hi, wasm_i32x4_splat(sc[2 * pair + 1]))));
            }
            int32_t summ = 0;
            for (int j = 0; j < 8; ++j) summ += m[j] * (xb.bsums[2 * j] + xb.bsums[2 * j + 1]);
            out[s] += xb.d * (d * float(sumI32(sumi)) - dmin * float(summ));
        }
    }
}

// Q6_K: 210-byte super-blocks (quant_blocks.h), w = d * scale[g] * (q - 32) per group g of 16, so
// a group's dot is d * scale[g] * (sum(q * x) - 32 * sum(x)).
void dotQ6_K(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    for (int s = 0; s < nx; ++s) out[s] = 0.0f;
    for (int64_t b = 0; b < blocks; ++b, w += 210) {
        const float d = halfAt(w + 208);
        const auto* scales = reinterpret_cast<const int8_t*>(w + 192);
        alignas(16) uint8_t q[256];  // once for every x row
        q6kValues(w, q);
        for (int s = 0; s < nx; ++s) {
            const BlockQ8x256& xb = x[s * ldx + b];
            v128_t sumi = wasm_i32x4_splat(0);
            int32_t offset = 0;
            for (int g = 0; g < 16; ++g) {
                sumi = wasm_i32x4_add(sumi, wasm_i32x4_mul(dotI8(load(q + 16 * g), load(xb.q + 16 * g)), wasm_i32x4_splat(scales[g])));
                offset += scales[g] * 32 * xb.bsums[g];
            }
            out[s] += d * xb.d * float(sumI32(sumi) - offset);
        }
    }
}

// Quantized prefill (kernel_set.h): four x rows per vector. A weight pair (w[i], w[i + 1]) is
// broadcast to every lane and i32x4.dot_i16x8 adds both products of each lane's x pair at once.
constexpr int kLanes = 4, kPanelRows = 4;

void panel(BlockFormat f, const Int16Rows& w, int64_t r0, int nr, int64_t k, const PackedX& x, float* out) {
    const int64_t size = panelBlockSize(f), blocks = k / size;
    for (int r = 0; r < nr; ++r) {
        const int64_t row = r0 + r;
        const int16_t* wq = w.q + row * k;
        v128_t acc = wasm_f32x4_splat(0.0f);
        for (int64_t b = 0; b < blocks; ++b) {
            v128_t sum = wasm_i32x4_splat(0);
            for (int64_t i = b * size; i < (b + 1) * size; i += 2) {
                int32_t pair;
                std::memcpy(&pair, wq + i, 4);
                sum = wasm_i32x4_add(sum, wasm_i32x4_dot_i16x8(wasm_i32x4_splat(pair), load(x.q + (i / 2) * 2 * kLanes)));
            }
            v128_t scaled = wasm_f32x4_mul(wasm_f32x4_splat(w.d[row * blocks + b]), wasm_f32x4_convert_i32x4(sum));
            if (f == BlockFormat::Q4_K) {
                const int16_t* mins = w.mins + (row * blocks + b) * 8;
                v128_t minSum = wasm_i32x4_splat(0);
                for (int jp = 0; jp < 4; ++jp) {
                    int32_t minPair;
                    std::memcpy(&minPair, mins + 2 * jp, 4);
                    minSum = wasm_i32x4_add(minSum, wasm_i32x4_dot_i16x8(wasm_i32x4_splat(minPair), load(x.sums + (b * 4 + jp) * kLanes * 2)));
                }
                scaled = wasm_f32x4_sub(scaled, wasm_f32x4_mul(wasm_f32x4_splat(w.dmin[row * blocks + b]), wasm_f32x4_convert_i32x4(minSum)));
            }
            acc = madd(acc, load(x.d + b * kLanes), scaled);
        }
        wasm_v128_store(out + r * kLanes, acc);
    }
}

const KernelSet kSimd128{"simd128", prepareBF16, dotBF16, dotBF16Pair, dotQ8_0, dotQ4_0, dotQ4_K, dotQ6_K, nullptr, kLanes, kPanelRows, unpackRows, panel, nullptr, nullptr};

}  // namespace

const KernelSet* simd128Kernels() { return &kSimd128; }

}  // namespace llama::ml::kernels
