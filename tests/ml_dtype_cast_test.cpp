#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "ml/bf16_products.h"
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

TEST_CASE("TransposedBF16 rounds as ToBFloat16 does, every element to its transposed place", "[ml][convert][bf16]") {
    // Whole 16 x 16 tiles (transposed in registers) and a matrix's edges (element by element);
    // a NaN, infinities and values halfway between two BF16s among them.
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{48, 32}, {37, 53}, {16, 5}}) {
        Tensor a = randomTensor({rows, cols}, DType::F32, 8, -4.0f, 4.0f);
        float* ad = a.mutableData<float>();
        ad[0] = std::numeric_limits<float>::quiet_NaN();
        ad[cols + 1] = std::numeric_limits<float>::infinity();
        ad[2 * cols + 3] = -std::numeric_limits<float>::infinity();
        ad[3 * cols + 2] = 1.0f + 1.0f / 256.0f;  // halfway: to even (1.0)
        Tensor t = TransposedBF16(a);
        REQUIRE(t.shape() == Shape{cols, rows});
        const Tensor expected = ToBFloat16(Contiguous(Transpose(a, 0, 1)));
        REQUIRE(std::memcmp(t.rawData(), expected.rawData(), t.byteSize()) == 0);
    }
}
