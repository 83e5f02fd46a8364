#pragma once
// bfloat16: the top 16 bits of an IEEE-754 float32. We keep our own type so that
// rounding is explicit (round-to-nearest-even, as PyTorch does) and visible to learners.
#include <cstdint>
#include <cstring>

namespace llama {

struct BFloat16 {
    uint16_t bits = 0;

    BFloat16() = default;
    explicit BFloat16(float f) : bits(fromFloat(f)) {}

    static uint16_t fromFloat(float f) {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // NaN stays a quiet NaN
        // Round to nearest, ties to even: add 0x7fff plus the lowest kept bit.
        uint32_t lsb = (u >> 16) & 1u;
        return uint16_t((u + 0x7fffu + lsb) >> 16);
    }
    static float toFloat(uint16_t b) {
        uint32_t u = uint32_t(b) << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    float toFloat() const { return toFloat(bits); }
    explicit operator float() const { return toFloat(bits); }
};

static_assert(sizeof(BFloat16) == 2);

// Rounds a float to the nearest bfloat16 value, returned as a float.
inline float roundToBF16(float f) { return BFloat16::toFloat(BFloat16::fromFloat(f)); }

}  // namespace llama
