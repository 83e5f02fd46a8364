#include "formats/gguf/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "tensor/bfloat16.h"
#include "tensor/float16.h"
#include "tensor/quant_blocks.h"

namespace llama {

namespace {

void putHalf(uint8_t* p, float v) {
    uint16_t h = floatToHalf(v);
    std::memcpy(p, &h, 2);
}

int nearest(float v) { return int(std::lround(v)); }

// The element of largest magnitude, with its sign (the first such, +0 for an all-zero block):
// symmetric formats map it to -qmax (the asymmetric integer range -qmax..qmax-1 is then used
// fully on that side). The largest magnitude first, then its element: the one-pass loop that
// carried the element along came out of clang 19's WebAssembly build (the browser's relaxed-SIMD
// module) with +0.0598 for a block whose largest magnitude was -0.0601, so Q4_0 and Q6_K files
// quantized in the page differed from the CLI's.
float signedMax(const float* x, int n) {
    float amax = 0;
    for (int i = 0; i < n; ++i) amax = std::max(amax, std::fabs(x[i]));
    if (amax == 0) return 0;
    for (int i = 0;; ++i)
        if (std::fabs(x[i]) == amax) return x[i];
}

void quantizeQ8_0(const float* x, uint8_t* b) {
    float amax = 0;
    for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[i]));
    putHalf(b, amax / 127);
    float d = halfToFloat(floatToHalf(amax / 127));  // quantize against the scale the file stores
    for (int i = 0; i < 32; ++i) b[2 + i] = uint8_t(int8_t(d ? std::clamp(nearest(x[i] / d), -127, 127) : 0));
}

void quantizeQ4_0(const float* x, uint8_t* b) {
    float d = halfToFloat(floatToHalf(signedMax(x, 32) / -8));
    putHalf(b, d);
    auto q = [&](float v) { return uint8_t(d ? std::clamp(nearest(v / d) + 8, 0, 15) : 8); };
    for (int j = 0; j < 16; ++j) b[2 + j] = uint8_t(q(x[j]) | (q(x[j + 16]) << 4));
}

// The candidate scales a sub-block is tried with: the plain range-based scale times these.
constexpr float kScaleSearch[] = {0.80f, 0.84f, 0.88f, 0.91f, 0.94f, 0.97f, 1.0f, 1.03f, 1.06f};

// Q4_K's sub-block fit w ≈ s * q - m with q in 0..15 and m = -min(0, min w) fixed: the scale
// with the smallest squared error among kScaleSearch.
float fitAsymmetric(const float* x, int n, float m) {
    float hi = *std::max_element(x, x + n);
    float base = (hi + m) / 15;
    if (base <= 0) return 0;
    float best = base, bestErr = INFINITY;
    for (float f : kScaleSearch) {
        float s = base * f, err = 0;
        for (int i = 0; i < n; ++i) {
            float q = std::clamp(std::round((x[i] + m) / s), 0.0f, 15.0f);
            err += (s * q - m - x[i]) * (s * q - m - x[i]);
        }
        if (err < bestErr) bestErr = err, best = s;
    }
    return best;
}

// Q6_K's sub-block fit w ≈ s * q with q in -32..31, the same search around max / -32.
float fitSymmetric(const float* x, int n) {
    float base = signedMax(x, n) / -32;
    if (base == 0) return 0;
    float best = base, bestErr = INFINITY;
    for (float f : kScaleSearch) {
        float s = base * f, err = 0;
        for (int i = 0; i < n; ++i) {
            float q = std::clamp(std::round(x[i] / s), -32.0f, 31.0f);
            err += (s * q - x[i]) * (s * q - x[i]);
        }
        if (err < bestErr) bestErr = err, best = s;
    }
    return best;
}

void quantizeQ4_K(const float* x, uint8_t* b) {
    float scale[8], min[8];
    for (int j = 0; j < 8; ++j) {
        min[j] = -std::min(0.0f, *std::min_element(x + 32 * j, x + 32 * j + 32));
        scale[j] = fitAsymmetric(x + 32 * j, 32, min[j]);
    }
    // The sub-block scales and mins are themselves 6-bit multiples of d and dmin.
    float maxScale = *std::max_element(scale, scale + 8), maxMin = *std::max_element(min, min + 8);
    float d = halfToFloat(floatToHalf(maxScale / 63)), dmin = halfToFloat(floatToHalf(maxMin / 63));
    putHalf(b, d);
    putHalf(b + 2, dmin);
    uint8_t sc[8], m[8];
    for (int j = 0; j < 8; ++j) {
        sc[j] = uint8_t(d ? std::clamp(nearest(scale[j] / d), 0, 63) : 0);
        m[j] = uint8_t(dmin ? std::clamp(nearest(min[j] / dmin), 0, 63) : 0);
    }
    packQ4KScales(sc, m, b + 4);
    uint8_t* qs = b + 16;
    std::memset(qs, 0, 128);
    for (int e = 0; e < 256; ++e) {
        int j = e / 32;
        float s = d * sc[j], mm = dmin * m[j];
        int q = s ? std::clamp(nearest((x[e] + mm) / s), 0, 15) : 0;
        int pair = e / 64, hi = (e % 64) / 32, l = e % 32;
        qs[32 * pair + l] |= uint8_t(q << (4 * hi));
    }
}

void quantizeQ6_K(const float* x, uint8_t* b) {
    float scale[16];
    for (int g = 0; g < 16; ++g) scale[g] = fitSymmetric(x + 16 * g, 16);
    float d = halfToFloat(floatToHalf(signedMax(scale, 16) / -128));
    int8_t sc[16];
    for (int g = 0; g < 16; ++g) sc[g] = int8_t(d ? std::clamp(nearest(scale[g] / d), -128, 127) : 0);
    uint8_t q[256];
    for (int e = 0; e < 256; ++e) {
        float s = d * sc[e / 16];
        q[e] = uint8_t((s ? std::clamp(nearest(x[e] / s), -32, 31) : 0) + 32);
    }
    uint8_t* ql = b;
    uint8_t* qh = b + 128;
    for (int half = 0; half < 2; ++half) {
        const uint8_t* h = q + 128 * half;
        for (int l = 0; l < 32; ++l) {
            ql[64 * half + l] = uint8_t((h[l] & 15) | ((h[l + 64] & 15) << 4));
            ql[64 * half + l + 32] = uint8_t((h[l + 32] & 15) | ((h[l + 96] & 15) << 4));
            qh[32 * half + l] = uint8_t((h[l] >> 4) | ((h[l + 32] >> 4) << 2) | ((h[l + 64] >> 4) << 4) | ((h[l + 96] >> 4) << 6));
        }
    }
    std::memcpy(b + 192, sc, 16);
    putHalf(b + 208, d);
}

}  // namespace

std::vector<uint8_t> quantize(DType t, const float* x, int64_t count) {
    const int64_t bs = dtypeBlockSize(t);
    if (count % bs) throw std::invalid_argument(std::to_string(count) + " values are not whole " + dtypeName(t) + " blocks");
    std::vector<uint8_t> out(dtypeBytes(t, count));
    uint8_t* b = out.data();
    const size_t bb = dtypeBlockBytes(t);
    switch (t) {
        case DType::F32: std::memcpy(b, x, size_t(count) * 4); break;
        case DType::BF16:
            for (int64_t i = 0; i < count; ++i) {
                uint16_t h = BFloat16::fromFloat(x[i]);
                std::memcpy(b + 2 * i, &h, 2);
            }
            break;
        case DType::F16:
            for (int64_t i = 0; i < count; ++i) putHalf(b + 2 * i, x[i]);
            break;
        case DType::Q8_0: for (int64_t i = 0; i < count; i += bs, b += bb) quantizeQ8_0(x + i, b); break;
        case DType::Q4_0: for (int64_t i = 0; i < count; i += bs, b += bb) quantizeQ4_0(x + i, b); break;
        case DType::Q4_K: for (int64_t i = 0; i < count; i += bs, b += bb) quantizeQ4_K(x + i, b); break;
        case DType::Q6_K: for (int64_t i = 0; i < count; i += bs, b += bb) quantizeQ6_K(x + i, b); break;
        default: throw std::invalid_argument(std::string("cannot quantize to ") + dtypeName(t));
    }
    return out;
}

}  // namespace llama
