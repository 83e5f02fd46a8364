#pragma once
// IEEE 754 half precision (F16), the scale type of ggml's quantized blocks and GGUF's F16
// tensors. One F16C instruction where the CPU has it (decoding reads a scale per block),
// else portable bit manipulation.
#include <cstdint>
#include <cstring>

#ifdef __F16C__
#include <immintrin.h>
#endif

namespace llama {

// The conversion spelled out (used where F16C is missing; tests compare the two).
inline float halfToFloatPortable(uint16_t h) {
    uint32_t sign = uint32_t(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000 | (mant << 13);  // inf / NaN
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (mant << 13);  // rebias 15 -> 127
    } else if (mant == 0) {
        bits = sign;
    } else {
        // Subnormal: value = mant * 2^-24, exactly representable in float.
        float v = float(mant) * (1.0f / 16777216.0f);
        std::memcpy(&bits, &v, 4);
        bits |= sign;
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

inline float halfToFloat(uint16_t h) {
#ifdef __F16C__
    return _cvtsh_ss(h);
#else
    return halfToFloatPortable(h);
#endif
}

// Round to nearest even; overflow gives inf, as numpy's float16 cast does.
inline uint16_t floatToHalf(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint16_t sign = uint16_t((x >> 16) & 0x8000);
    uint32_t absx = x & 0x7fffffff;
    if (absx >= 0x7f800000) return sign | 0x7c00 | (absx > 0x7f800000 ? 0x200 : 0);
    if (absx >= 0x477ff000) return sign | 0x7c00;  // rounds to >= 65520: inf
    if (absx < 0x38800000) {
        // Below the smallest normal half (2^-14): subnormal, in units of 2^-24.
        float a;
        std::memcpy(&a, &absx, 4);
        float scaled = a * 16777216.0f;
        uint32_t q = uint32_t(scaled);
        float rem = scaled - float(q);
        if (rem > 0.5f || (rem == 0.5f && (q & 1))) ++q;
        return sign | uint16_t(q);
    }
    uint32_t mant = absx & 0x7fffff, exp = (absx >> 23) - 112;
    uint32_t h = (exp << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;  // may carry into the exponent: still correct
    return sign | uint16_t(h);
}

}  // namespace llama
