// inspect --block's reading of a block (quant_block_explain.h) against the decoder the engine
// computes with (quant_blocks.h): two independent readings of each layout must agree on every
// weight, for blocks of random bytes and for blocks our quantizer wrote.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "formats/gguf/quantize.h"
#include "tensor/quant_block_explain.h"
#include "tensor/quant_blocks.h"

using namespace llama;

namespace {
void checkAgainstDecoder(DType t, const std::vector<uint8_t>& block) {
    const int64_t n = dtypeBlockSize(t);
    std::vector<float> decoded(static_cast<size_t>(n));
    dequantize(t, block.data(), decoded.data(), n);
    const BlockExplanation e = explainBlock(t, block.data());
    REQUIRE(e.weights.size() == size_t(n));
    for (int64_t j = 0; j < n; ++j) {
        const BlockWeight& w = e.weights[size_t(j)];
        INFO(dtypeName(t) << " weight " << j << ": q " << w.q << ", a " << w.a << ", b " << w.b);
        // a * q - b and the decoder's grouping (d * (q - 8), ...) round differently by an ulp or two.
        CHECK(std::abs(w.value() - decoded[size_t(j)]) <= 1e-6f * (std::abs(w.a) * 64 + std::abs(w.b)) + 1e-12f);
    }
    // The fields tile the block.
    size_t covered = 0;
    for (const BlockField& f : e.fields) {
        CHECK(f.offset == covered);
        covered += f.bytes;
    }
    CHECK(covered == dtypeBlockBytes(t));
}

// Where each format keeps its float16 scales: set to a finite value so random bytes decode.
void setHalfScales(DType t, std::vector<uint8_t>& block, uint16_t half) {
    auto put = [&](size_t at) { block[at] = uint8_t(half & 0xff), block[at + 1] = uint8_t(half >> 8); };
    if (t == DType::Q6_K) return put(208);
    put(0);
    if (t == DType::Q4_K) put(2);
}
}  // namespace

TEST_CASE("block explanation: every weight as w = a * q - b agrees with the decoder", "[gguf][quant]") {
    std::mt19937 rng(7);
    for (DType t : {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K}) {
        for (int trial = 0; trial < 50; ++trial) {
            std::vector<uint8_t> block(dtypeBlockBytes(t));
            for (auto& b : block) b = uint8_t(rng());
            setHalfScales(t, block, uint16_t(0x2000 + rng() % 0x1800));  // 2^-7 .. about 0.5
            checkAgainstDecoder(t, block);
        }
        std::normal_distribution<float> normal(0.0f, 0.02f);
        std::vector<float> weights(size_t(dtypeBlockSize(t)));
        for (float& w : weights) w = normal(rng);
        checkAgainstDecoder(t, quantize(t, weights.data(), int64_t(weights.size())));
    }
}

TEST_CASE("block explanation: Q4_0's formula and nibble order, worked by hand", "[gguf][quant]") {
    std::vector<uint8_t> block(18, 0);
    block[0] = 0x00, block[1] = 0x3c;  // d = 1.0
    block[2] = 0xa3;                    // weight 0: low nibble 3, weight 16: high nibble 10
    const BlockExplanation e = explainBlock(DType::Q4_0, block.data());
    CHECK(e.formula == "w = d * (q - 8)");
    CHECK(e.weights[0].q == 3);
    CHECK(e.weights[0].value() == -5.0f);
    CHECK(e.weights[16].q == 10);
    CHECK(e.weights[16].value() == 2.0f);
    CHECK(e.weights[1].value() == -8.0f);
    CHECK(e.fields[0].meaning == "float16 0x3c00 = 1, the block's scale");
}

TEST_CASE("block explanation: a plain type is refused with the reason", "[gguf][quant]") {
    uint8_t bytes[4] = {};
    REQUIRE_THROWS_WITH(explainBlock(DType::BF16, bytes), Catch::Contains("BF16 is not a block-quantized type"));
}
