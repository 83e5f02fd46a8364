#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "tensor/bfloat16.h"
#include "tensor/tensor.h"

using namespace llama;

TEST_CASE("bfloat16 rounds to nearest, ties to even", "[tensor][bf16]") {
    // 1 + 2^-8 lies exactly halfway between bf16 values 1 and 1 + 2^-7: ties go to the even one (1).
    REQUIRE(roundToBF16(1.0f + std::ldexp(1.0f, -8)) == 1.0f);
    // 1 + 3*2^-8 is halfway between 1+2^-7 (odd mantissa) and 1+2^-6 (even): rounds up.
    REQUIRE(roundToBF16(1.0f + 3 * std::ldexp(1.0f, -8)) == 1.0f + std::ldexp(1.0f, -6));
    // Just above the halfway point rounds up.
    REQUIRE(roundToBF16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)) == 1.0f + std::ldexp(1.0f, -7));
    // Exactly representable values survive.
    for (float v : {0.0f, -2.0f, 0.5f, 3.140625f, 1e-30f * 0 + 65536.0f}) REQUIRE(roundToBF16(v) == v);
    REQUIRE(BFloat16(1.0f).bits == 0x3f80);
    REQUIRE(BFloat16(-2.0f).bits == 0xc000);
    REQUIRE(std::isinf(roundToBF16(std::numeric_limits<float>::infinity())));
    REQUIRE(std::isnan(roundToBF16(std::numeric_limits<float>::quiet_NaN())));
    // The largest float rounds up to infinity in bf16, as in PyTorch.
    REQUIRE(std::isinf(roundToBF16(std::numeric_limits<float>::max())));
}

TEST_CASE("tensor shape notation and reshape", "[tensor]") {
    Tensor t({22, 4096}, DType::BF16);
    REQUIRE(t.shapeStr() == "shape([22 4096])");
    REQUIRE(t.byteSize() == 22 * 4096 * 2);
    Tensor r = t.reshaped({22, 32, 128});
    REQUIRE(r.shapeStr() == "shape([22 32 128])");
    REQUIRE(r.rawData() == t.rawData());
    REQUIRE_THROWS_WITH(t.reshaped({5, 5}), Catch::Contains("cannot reshape shape([22 4096])"));
    Tensor c = t.clone();
    REQUIRE(c.rawData() != t.rawData());
    REQUIRE_FALSE(Tensor::shapeOnly({2, 3}, DType::F32).hasData());
}
