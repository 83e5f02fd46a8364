#include <catch2/catch.hpp>

#include <cmath>

#include "ml/ops.h"
#include "ml_test_util.h"

using namespace llama;
using namespace llama::ml;
using namespace llama::test;

TEST_CASE("ToBFloat16 rounds to nearest even, ToFloat32 is exact", "[ml][convert][bf16]") {
    float tie = 1.0f + std::ldexp(1.0f, -8), above = 1.0f + 3 * std::ldexp(1.0f, -8);
    Tensor f = fromValues({3}, DType::F32, {tie, above, -2.5f});
    Tensor b = ToBFloat16(f);
    REQUIRE(b.dtype() == DType::BF16);
    REQUIRE(b.floatAt(0) == 1.0f);
    REQUIRE(b.floatAt(1) == 1.0f + std::ldexp(1.0f, -6));
    REQUIRE(b.floatAt(2) == -2.5f);
    Tensor back = ToFloat32(b);
    REQUIRE(back.dtype() == DType::F32);
    for (int64_t i = 0; i < 3; ++i) REQUIRE(back.floatAt(i) == b.floatAt(i));
    // Same dtype: an independent copy.
    Tensor copy = ToFloat32(f);
    REQUIRE(copy.rawData() != f.rawData());
    REQUIRE(copy.floatAt(1) == above);
    REQUIRE(ToBFloat16(Tensor::shapeOnly({2, 3}, DType::F32)).dtype() == DType::BF16);
    REQUIRE_THROWS_WITH(ToFloat32(Tensor({2}, DType::I32)), "ToFloat32: a shape([2]) must be F32 or BF16, got Int32");
}
