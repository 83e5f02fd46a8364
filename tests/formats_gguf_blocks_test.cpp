// ggml's block formats decoded from hand-made blocks (expected values worked out from the
// format definitions in quant_blocks.h), F16 conversions, and our quantizers' round trips.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ml/ops.h"
#include "ml_test_util.h"
#include "tensor/float16.h"
#include "tensor/quant_blocks.h"
#include "formats/gguf/quantize.h"

using namespace llama;

namespace {

void putU16(std::vector<uint8_t>& b, size_t at, uint16_t v) { std::memcpy(b.data() + at, &v, 2); }

std::vector<float> decode(DType t, const std::vector<uint8_t>& blocks) {
    int64_t n = int64_t(blocks.size() / dtypeBlockBytes(t)) * dtypeBlockSize(t);
    std::vector<float> out(static_cast<size_t>(n));
    dequantize(t, blocks.data(), out.data(), n);
    return out;
}

std::vector<float> gaussian(int64_t n, unsigned seed, float sigma = 0.02f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, sigma);
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = dist(rng);
    return v;
}

double rmsError(const std::vector<float>& a, const std::vector<float>& b) {
    double se = 0, ss = 0;
    for (size_t i = 0; i < a.size(); ++i) se += (a[i] - b[i]) * (a[i] - b[i]), ss += a[i] * a[i];
    return std::sqrt(se / ss);  // relative to the signal's RMS
}

}  // namespace

TEST_CASE("F16 conversions are exact where they must be", "[gguf][quant]") {
    CHECK(halfToFloat(0x3C00) == 1.0f);
    CHECK(halfToFloat(0xC000) == -2.0f);
    CHECK(halfToFloat(0x7BFF) == 65504.0f);
    CHECK(halfToFloat(0x0001) == std::ldexp(1.0f, -24));  // smallest subnormal
    CHECK(std::isinf(halfToFloat(0x7C00)));
    CHECK(floatToHalf(1.0f) == 0x3C00);
    CHECK(floatToHalf(65520.0f) == 0x7C00);              // rounds past the largest half
    CHECK(floatToHalf(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);  // a tie rounds to even
    CHECK(floatToHalf(std::ldexp(1.0f, -25) * 3) == 0x0002);      // subnormal 1.5 ulp -> 2
    for (uint32_t h = 0; h < 0x7C00; ++h) REQUIRE(floatToHalf(halfToFloat(uint16_t(h))) == h);
    for (uint32_t h = 0; h <= 0xFFFF; ++h) {
        float a = halfToFloat(uint16_t(h)), b = halfToFloatPortable(uint16_t(h));
        REQUIRE((std::memcmp(&a, &b, 4) == 0 || (std::isnan(a) && std::isnan(b))));
    }
}

TEST_CASE("Q8_0 block: w = d * q", "[gguf][quant]") {
    std::vector<uint8_t> b(34, 0);
    putU16(b, 0, 0x3800);  // d = 0.5
    b[2] = 1;
    b[3] = uint8_t(int8_t(-2));
    b[33] = 127;
    auto w = decode(DType::Q8_0, b);
    CHECK(w[0] == 0.5f);
    CHECK(w[1] == -1.0f);
    CHECK(w[2] == 0.0f);
    CHECK(w[31] == 63.5f);
}

TEST_CASE("Q4_0 block: w = d * (q - 8), low nibbles first", "[gguf][quant]") {
    std::vector<uint8_t> b(18, 0x88);  // every q = 8: zero
    putU16(b, 0, 0x4000);              // d = 2
    b[2] = 0x9F;                       // weight 0: q = 15, weight 16: q = 9
    b[17] = 0x08 | 0x00;               // weight 15: q = 8, weight 31: q = 0
    auto w = decode(DType::Q4_0, b);
    CHECK(w[0] == 14.0f);
    CHECK(w[16] == 2.0f);
    CHECK(w[15] == 0.0f);
    CHECK(w[31] == -16.0f);
    CHECK(w[1] == 0.0f);
}

TEST_CASE("Q4_K block: w = d * sc * q - dmin * m with 6-bit packed scales", "[gguf][quant]") {
    std::vector<uint8_t> b(144, 0);
    putU16(b, 0, 0x3C00);  // d = 1
    putU16(b, 2, 0x3800);  // dmin = 0.5
    // Sub-block 0: scale 2, min 4 (low 6 bits of bytes 0 and 4).
    b[4 + 0] = 2;
    b[4 + 4] = 4;
    // Sub-block 5: scale 33 = 0b10'0001, min 17 = 0b01'0001: low nibbles in byte 9, top
    // bits in bits 6-7 of byte 1 (scale) and byte 5 (min).
    b[4 + 9] = 0x11;
    b[4 + 1] = 0x80;
    b[4 + 5] = 0x40;
    b[16 + 0] = 0x37;   // weight 0 (sub-block 0, low nibble): q = 7; weight 32 (sub-block 1): q = 3
    b[16 + 64] = 0xA0;  // weight 160 (sub-block 5, high nibble of byte 64): q = 10
    auto w = decode(DType::Q4_K, b);
    CHECK(w[0] == 1 * 2 * 7 - 0.5f * 4);
    CHECK(w[1] == -0.5f * 4);  // q = 0
    CHECK(w[32] == 0.0f);      // sub-block 1: scale 0, min 0
    CHECK(w[160] == 1 * 33 * 10 - 0.5f * 17);
    CHECK(w[128] == -0.5f * 17 * 0 + 0.0f);  // sub-block 4: scale 0 (low nibble of byte 8), min 0
    uint8_t sc[8], m[8], packed[12];
    unpackQ4KScales(b.data() + 4, sc, m);
    CHECK(sc[5] == 33);
    CHECK(m[5] == 17);
    packQ4KScales(sc, m, packed);
    CHECK(std::memcmp(packed, b.data() + 4, 12) == 0);
}

TEST_CASE("Q6_K block: w = d * scale * (q - 32), q split into 4 + 2 bits", "[gguf][quant]") {
    std::vector<uint8_t> b(210, 0);
    b[192 + 0] = 4;                   // scale of weights 0..15
    b[192 + 10] = uint8_t(int8_t(-3)); // scale of weights 160..175
    putU16(b, 208, 0x3400);           // d = 0.25
    b[0] = 0x05;                      // weight 0: low 4 bits 5 (low nibble of ql[0])
    b[128 + 0] = 0x02;                // weight 0: high 2 bits 2 (bits 0-1 of qh[0]) -> q = 37
    b[64 + 35] = 0x0F;                // weight 163 = 128 + 32 + 3: low nibble of ql[64 + 32 + 3]; qh bits 0
    auto w = decode(DType::Q6_K, b);
    CHECK(w[0] == 0.25f * 4 * 5);
    CHECK(w[1] == 0.25f * 4 * -32);
    CHECK(w[163] == 0.25f * -3 * (15 - 32));
    CHECK(w[16] == 0.0f);  // scale 1 is 0
}

TEST_CASE("quantize -> dequantize stays within each format's error bound", "[gguf][quant]") {
    const auto x = gaussian(256 * 64, 7);
    // Q8_0: every weight within half a step (d = max|x| / 127, stored as f16) of the original.
    auto q8 = decode(DType::Q8_0, quantize(DType::Q8_0, x.data(), int64_t(x.size())));
    for (size_t blk = 0; blk < x.size(); blk += 32) {
        float amax = 0;
        for (size_t i = blk; i < blk + 32; ++i) amax = std::max(amax, std::fabs(x[i]));
        for (size_t i = blk; i < blk + 32; ++i) REQUIRE(std::fabs(q8[i] - x[i]) <= amax / 127 * 0.5f * 1.002f);
    }
    // Q4_0: d = max / -8 puts the extreme on q = 0 (-8); the other side reaches at most +8
    // steps but q - 8 stops at +7, so the bound there is one whole step.
    auto q4 = decode(DType::Q4_0, quantize(DType::Q4_0, x.data(), int64_t(x.size())));
    for (size_t blk = 0; blk < x.size(); blk += 32) {
        float amax = 0;
        for (size_t i = blk; i < blk + 32; ++i) amax = std::max(amax, std::fabs(x[i]));
        for (size_t i = blk; i < blk + 32; ++i) REQUIRE(std::fabs(q4[i] - x[i]) <= amax / 8 * 1.002f);
    }
    auto q4k = decode(DType::Q4_K, quantize(DType::Q4_K, x.data(), int64_t(x.size())));
    auto q6k = decode(DType::Q6_K, quantize(DType::Q6_K, x.data(), int64_t(x.size())));
    double e8 = rmsError(x, q8), e4 = rmsError(x, q4), e4k = rmsError(x, q4k), e6k = rmsError(x, q6k);
    INFO("relative RMS error: Q8_0 " << e8 << ", Q6_K " << e6k << ", Q4_K " << e4k << ", Q4_0 " << e4);
    // Gaussian weights, measured: Q8_0 0.0053, Q6_K 0.0175, Q4_K 0.074, Q4_0 0.086. The bounds
    // leave ~30% room; the order (more bits, less error; Q4_K's scale search beats Q4_0's
    // plain scale) is the property that matters.
    CHECK(e8 < 0.007);
    CHECK(e6k < 0.023);
    CHECK(e4k < 0.095);
    CHECK(e4 < 0.11);
    CHECK(e8 < e6k);
    CHECK(e6k < e4k);
    CHECK(e4k < e4);
}

TEST_CASE("LinearTransformation and Fwd_Get_Rows decode quantized weights", "[gguf][quant][ml]") {
    // The reference path decodes the weights to F32 (the integer kernels have their own test).
    test::UsingKernels reference("reference");
    const int64_t out = 5, in = 512;
    const auto w = gaussian(out * in, 3, 1.0f);
    const auto xv = gaussian(7 * in, 4, 1.0f);
    for (DType t : {DType::F16, DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K}) {
        DYNAMIC_SECTION(dtypeName(t)) {
            auto bytes = quantize(t, w.data(), out * in);
            Tensor wq({out, in}, t);
            std::memcpy(wq.mutableData<uint8_t>(), bytes.data(), bytes.size());
            REQUIRE(wq.byteSize() == bytes.size());
            Tensor wf({out, in}, DType::F32);  // the same weights, decoded
            dequantize(t, bytes.data(), wf.mutableData<float>(), out * in);
            for (int64_t rows : {1, 7}) {  // decode path and prefill (blocked) path
                Tensor x({rows, in}, DType::F32);
                std::copy(xv.begin(), xv.begin() + rows * in, x.mutableData<float>());
                Tensor yq = ml::LinearTransformation(x, wq), yf = ml::LinearTransformation(x, wf);
                for (int64_t i = 0; i < rows * out; ++i) REQUIRE(yq.floatAt(i) == Approx(yf.floatAt(i)).margin(1e-3));
            }
            Tensor rows = ml::Fwd_Get_Rows(wq, Tensor::fromInt32({4, 0}));
            REQUIRE(rows.dtype() == DType::F32);
            for (int64_t i = 0; i < in; ++i) {
                REQUIRE(rows.floatAt(i) == wf.floatAt(4 * in + i));
                REQUIRE(rows.floatAt(in + i) == wq.floatAt(i));
            }
        }
    }
}
