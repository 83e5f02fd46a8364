#pragma once
// exp for float, written so the compiler can vectorise the loops that call it (no library
// call, no branch): Silu's exp ran one libm call per element, 3% of BF16 prefill. Within 2 ULP
// of the exact value wherever the result is a normal float (tests/ml_exp_approx_test.cpp),
// as PyTorch's own vectorised exp (SLEEF, 1 ULP) is; overflow gives inf, underflow subnormals
// and then 0, NaN stays NaN.
#include <cmath>
#include <cstdint>
#include <cstring>

namespace llama::ml::detail {

// 2^n for -126 <= n <= 127, built from its exponent bits.
inline float powerOfTwo(int32_t n) {
    const uint32_t bits = uint32_t(n + 127) << 23;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

inline float expApprox(float x) {
    // exp(x) = 2^n * exp(r) with n = round(x / ln 2) and |r| <= ln 2 / 2. Past the clamp the
    // result is inf or 0 anyway; NaN becomes 0 for the integer steps. (Comparisons, not
    // std::fmin/fmax or std::nearbyint, which GCC does not vectorise without -ffast-math.)
    float xc = x < -104.0f ? -104.0f : x;
    xc = xc > 89.0f ? 89.0f : xc;
    xc = x != x ? 0.0f : xc;
    // Adding and taking away 1.5 * 2^23 rounds to the nearest integer (ties to even).
    const float n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    // ln 2 in two parts (Cody and Waite): n * 0.693359375 is exact for |n| <= 150.
    float r = xc - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    // The minimax polynomial for exp(r) on that interval from Cephes' expf.
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    // Two powers of two, so each stays a normal float from 2^-150 (underflow) to 2^128 (overflow).
    const int32_t ni = int32_t(n), half = ni / 2;
    const float y = p * powerOfTwo(half) * powerOfTwo(ni - half);
    return x != x ? x : y;
}

}  // namespace llama::ml::detail
