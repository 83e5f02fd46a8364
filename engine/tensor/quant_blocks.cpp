#include "tensor/quant_blocks.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "tensor/bfloat16.h"
#include "tensor/float16.h"

#ifdef __AVX2__
#include <immintrin.h>
#endif

namespace llama {

namespace {

uint16_t readU16(const uint8_t* p) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}

// The 32-weight formats are decoded 8 weights per AVX2 instruction where available (the
// compiler does not vectorize their scalar loops well: measured 3-6x slower).
#ifdef __AVX2__
// The low 8 bytes as integers (sign- or zero-extended), minus `offset`, times d.
inline void store8(float* y, __m128i bytes, __m256i offset, __m256 d, bool isSigned) {
    __m256i v = isSigned ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
    _mm256_storeu_ps(y, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(v, offset)), d));
}
#endif

void decodeQ8_0(const uint8_t* b, float* y) {
    float d = halfToFloat(readU16(b));
    const auto* q = reinterpret_cast<const int8_t*>(b + 2);
#ifdef __AVX2__
    const __m256 dv = _mm256_set1_ps(d);
    for (int j = 0; j < 32; j += 8)
        store8(y + j, _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + j)), _mm256_setzero_si256(), dv, true);
#else
    for (int j = 0; j < 32; ++j) y[j] = d * float(q[j]);
#endif
}

void decodeQ4_0(const uint8_t* b, float* y) {
    float d = halfToFloat(readU16(b));
    const uint8_t* qs = b + 2;
#ifdef __AVX2__
    const __m256 dv = _mm256_set1_ps(d);
    const __m256i eight = _mm256_set1_epi32(8);
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
    const __m128i lo = _mm_and_si128(bytes, _mm_set1_epi8(0x0f));                     // weights 0..15
    const __m128i hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), _mm_set1_epi8(0x0f));  // weights 16..31
    store8(y, lo, eight, dv, false);
    store8(y + 8, _mm_srli_si128(lo, 8), eight, dv, false);
    store8(y + 16, hi, eight, dv, false);
    store8(y + 24, _mm_srli_si128(hi, 8), eight, dv, false);
#else
    for (int j = 0; j < 16; ++j) {
        y[j] = d * float(int(qs[j] & 0x0f) - 8);
        y[j + 16] = d * float(int(qs[j] >> 4) - 8);
    }
#endif
}

void decodeQ4_K(const uint8_t* b, float* y) {
    float d = halfToFloat(readU16(b)), dmin = halfToFloat(readU16(b + 2));
    uint8_t sc[8], m[8];
    unpackQ4KScales(b + 4, sc, m);
    const uint8_t* qs = b + 16;
    for (int pair = 0; pair < 4; ++pair, qs += 32, y += 64) {
        float d1 = d * sc[2 * pair], m1 = dmin * m[2 * pair];
        float d2 = d * sc[2 * pair + 1], m2 = dmin * m[2 * pair + 1];
        for (int l = 0; l < 32; ++l) {
            y[l] = d1 * float(qs[l] & 0x0f) - m1;
            y[l + 32] = d2 * float(qs[l] >> 4) - m2;
        }
    }
}

// Each half of 128 weights uses 64 bytes of ql, 32 of qh and 8 scales. Weight l + 32r
// (l < 32, r = 0..3) takes its low 4 bits from ql[l + 32 * (r & 1)] (low nibble for r < 2,
// high nibble for r >= 2), its high 2 bits from bits 2r, 2r + 1 of qh[l], and scale 2r + l / 16.
void decodeQ6_K(const uint8_t* b, float* y) {
    const uint8_t* ql = b;
    const uint8_t* qh = b + 128;
    const auto* scales = reinterpret_cast<const int8_t*>(b + 192);
    float d = halfToFloat(readU16(b + 208));
    for (int half = 0; half < 2; ++half, ql += 64, qh += 32, scales += 8, y += 128) {
        // 16 weights at a time share their scales, so the compiler can vectorize the loop.
        for (int is = 0; is < 2; ++is) {
            const float s1 = d * scales[is], s2 = d * scales[is + 2], s3 = d * scales[is + 4], s4 = d * scales[is + 6];
            for (int l = 16 * is; l < 16 * is + 16; ++l) {
                int q1 = int((ql[l] & 0x0f) | ((qh[l] & 3) << 4)) - 32;
                int q2 = int((ql[l + 32] & 0x0f) | (((qh[l] >> 2) & 3) << 4)) - 32;
                int q3 = int((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                int q4 = int((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                y[l] = s1 * float(q1);
                y[l + 32] = s2 * float(q2);
                y[l + 64] = s3 * float(q3);
                y[l + 96] = s4 * float(q4);
            }
        }
    }
}

}  // namespace

void unpackQ4KScales(const uint8_t* q, uint8_t scale[8], uint8_t min[8]) {
    for (int j = 0; j < 4; ++j) {
        scale[j] = q[j] & 63;
        min[j] = q[j + 4] & 63;
    }
    for (int j = 4; j < 8; ++j) {
        scale[j] = uint8_t((q[j + 4] & 0x0f) | ((q[j - 4] >> 6) << 4));
        min[j] = uint8_t((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

void packQ4KScales(const uint8_t scale[8], const uint8_t min[8], uint8_t* q) {
    for (int j = 0; j < 4; ++j) {
        q[j] = uint8_t((scale[j] & 63) | ((scale[j + 4] >> 4) << 6));
        q[j + 4] = uint8_t((min[j] & 63) | ((min[j + 4] >> 4) << 6));
        q[j + 8] = uint8_t((scale[j + 4] & 0x0f) | ((min[j + 4] & 0x0f) << 4));
    }
}

void dequantize(DType t, const void* blocks, float* out, int64_t count) {
    const auto* b = static_cast<const uint8_t*>(blocks);
    const int64_t bs = dtypeBlockSize(t);
    const size_t bb = dtypeBlockBytes(t);
    auto eachBlock = [&](auto decodeBlock) {
        for (int64_t i = 0; i < count; i += bs, b += bb) decodeBlock(b, out + i);
    };
    switch (t) {
        case DType::F32: std::memcpy(out, blocks, size_t(count) * 4); return;
        case DType::BF16:
            for (int64_t i = 0; i < count; ++i) out[i] = static_cast<const BFloat16*>(blocks)[i].toFloat();
            return;
        case DType::F16:
            for (int64_t i = 0; i < count; ++i) out[i] = halfToFloat(readU16(b + 2 * i));
            return;
        case DType::Q8_0: return eachBlock(decodeQ8_0);
        case DType::Q4_0: return eachBlock(decodeQ4_0);
        case DType::Q4_K: return eachBlock(decodeQ4_K);
        case DType::Q6_K: return eachBlock(decodeQ6_K);
        default: throw std::invalid_argument(std::string("cannot dequantize ") + dtypeName(t));
    }
}

}  // namespace llama
