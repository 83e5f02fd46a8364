#include "tensor/quant_block_explain.h"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "tensor/float16.h"
#include "tensor/quant_blocks.h"

namespace llama {

namespace {

float f16At(const uint8_t* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return halfToFloat(h);
}

std::string halfMeaning(const uint8_t* p, const char* what) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return fmt::format("float16 0x{:04x} = {:.6g}, {}", h, halfToFloat(h), what);
}

BlockExplanation explainQ8_0(const uint8_t* b) {
    const float d = f16At(b);
    BlockExplanation e{DType::Q8_0, "w = d * q", {}, {}};
    e.fields = {{"d", 0, 2, halfMeaning(b, "the block's scale")}, {"qs", 2, 32, "32 signed bytes, one per weight: q"}};
    for (int j = 0; j < 32; ++j) e.weights.push_back({int(int8_t(b[2 + j])), d, 0.0f, 0});
    return e;
}

BlockExplanation explainQ4_0(const uint8_t* b) {
    const float d = f16At(b);
    BlockExplanation e{DType::Q4_0, "w = d * (q - 8)", {}, {}};
    e.fields = {{"d", 0, 2, halfMeaning(b, "the block's scale")},
                {"qs", 2, 16, "32 unsigned 4-bit q: weight j < 16 in the low nibble of byte j, weight j + 16 in its high nibble"}};
    e.weights.resize(32);
    for (int j = 0; j < 16; ++j) {
        e.weights[size_t(j)] = {b[2 + j] & 0x0f, d, 8 * d, 0};
        e.weights[size_t(j) + 16] = {b[2 + j] >> 4, d, 8 * d, 0};
    }
    return e;
}

BlockExplanation explainQ4_K(const uint8_t* b) {
    const float d = f16At(b), dmin = f16At(b + 2);
    uint8_t sc[8], m[8];
    unpackQ4KScales(b + 4, sc, m);
    BlockExplanation e{DType::Q4_K, "w = d * sc * q - dmin * m (sc, m: the sub-block's 6-bit scale and min)", {}, {}};
    e.fields = {{"d", 0, 2, halfMeaning(b, "multiplies the sub-block scales")},
                {"dmin", 2, 2, halfMeaning(b + 2, "multiplies the sub-block mins")},
                {"scales", 4, 12,
                 fmt::format("eight 6-bit scales sc = {} and eight 6-bit mins m = {}, one each per sub-block of 32 weights",
                             fmt::join(sc, sc + 8, " "), fmt::join(m, m + 8, " "))},
                {"qs", 16, 128, "256 unsigned 4-bit q: each 32 bytes hold sub-block 2i in the low nibbles, 2i + 1 in the high nibbles"}};
    e.weights.resize(256);
    for (int pair = 0; pair < 4; ++pair)
        for (int l = 0; l < 32; ++l) {
            const uint8_t byte = b[16 + 32 * pair + l];
            for (int half = 0; half < 2; ++half) {
                const int g = 2 * pair + half;
                e.weights[size_t(64 * pair + 32 * half + l)] = {half ? byte >> 4 : byte & 0x0f, d * sc[g], dmin * m[g], g};
            }
        }
    return e;
}

BlockExplanation explainQ6_K(const uint8_t* b) {
    const uint8_t* ql = b;
    const uint8_t* qh = b + 128;
    const auto* scales = reinterpret_cast<const int8_t*>(b + 192);
    const float d = f16At(b + 208);
    BlockExplanation e{DType::Q6_K, "w = d * scale * (q - 32) (scale: the sub-block's signed 8-bit scale)", {}, {}};
    e.fields = {{"ql", 0, 128, "the low 4 bits of the 256 q, two per byte"},
                {"qh", 128, 64, "the high 2 bits of the 256 q, four per byte"},
                {"scales", 192, 16, fmt::format("16 signed 8-bit scales, one per 16 weights: {}", fmt::join(scales, scales + 16, " "))},
                {"d", 208, 2, halfMeaning(b + 208, "multiplies the scales")}};
    e.weights.resize(256);
    // Each half of 128 weights: weight l + 32r (l < 32, r = 0..3) has its low bits in
    // ql[l + 32 (r & 1)] (low nibble for r < 2), its high bits at bits 2r of qh[l].
    for (int half = 0; half < 2; ++half)
        for (int r = 0; r < 4; ++r)
            for (int l = 0; l < 32; ++l) {
                const uint8_t low = ql[64 * half + l + 32 * (r & 1)];
                const int q = ((r < 2 ? low & 0x0f : low >> 4) | (((qh[32 * half + l] >> (2 * r)) & 3) << 4));
                const int g = 8 * half + 2 * r + l / 16;
                const float a = d * float(scales[g]);
                e.weights[size_t(128 * half + 32 * r + l)] = {q, a, 32 * a, g};
            }
    return e;
}

}  // namespace

BlockExplanation explainBlock(DType t, const uint8_t* block) {
    switch (t) {
        case DType::Q8_0: return explainQ8_0(block);
        case DType::Q4_0: return explainQ4_0(block);
        case DType::Q4_K: return explainQ4_K(block);
        case DType::Q6_K: return explainQ6_K(block);
        default: throw std::invalid_argument(fmt::format("{} is not a block-quantized type: its weights are stored one by one", dtypeName(t)));
    }
}

}  // namespace llama
