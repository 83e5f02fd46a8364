#include <catch2/catch.hpp>

#include <limits>

#include "ml/ops.h"
#include "ml_test_util.h"

using namespace llama;
using namespace llama::ml;

TEST_CASE("Full fills every dtype", "[ml][creation]") {
    REQUIRE(Full({2, 3}, DType::F32, 1.5f).floatAt(5) == 1.5f);
    REQUIRE(Full({2}, DType::BF16, 1.0f + 1.0f / 512).floatAt(1) == 1.0f);  // rounded to bf16
    REQUIRE(Full({2}, DType::Complex64, 2.0f).data<Complex64>()[1] == Complex64(2.0f, 0.0f));
    REQUIRE(Full({3}, DType::I32, 7).data<int32_t>()[2] == 7);
    REQUIRE_THROWS_WITH(Full({2, -1}, DType::F32, 0), "Full: negative dimension in shape([2 -1])");
}

TEST_CASE("TriangularUpper keeps column - row >= diagonal", "[ml][creation]") {
    const float inf = std::numeric_limits<float>::infinity();
    for (int64_t diagonal : {-1, 0, 1, 3}) {
        Tensor m = TriangularUpper(Full({4, 6}, DType::BF16, -inf), diagonal);
        for (int64_t r = 0; r < 4; ++r)
            for (int64_t c = 0; c < 6; ++c) REQUIRE(m.floatAt(r * 6 + c) == (c - r >= diagonal ? -inf : 0.0f));
    }
    REQUIRE_THROWS_WITH(TriangularUpper(Tensor({2, 2, 2}, DType::F32), 1),
                        "TriangularUpper: expected a 2-D tensor, got shape([2 2 2])");
    REQUIRE(TriangularUpper(Tensor::shapeOnly({22, 22}, DType::F32), 1).shapeStr() == "shape([22 22])");
}
