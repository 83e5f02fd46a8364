#include <catch2/catch.hpp>

#include "ml/ops.h"
#include "ml_test_util.h"

using namespace llama;
using namespace llama::ml;
using namespace llama::test;

TEST_CASE("Fwd_Get_Rows picks table rows by token id", "[ml][rows]") {
    Tensor table = randomTensor({10, 7}, DType::BF16, 1);
    Tensor tokens = fromValues({4}, DType::I32, {3, 0, 9, 3});
    Tensor e = Fwd_Get_Rows(table, tokens);
    REQUIRE(e.shapeStr() == "shape([4 7])");
    REQUIRE(e.dtype() == DType::BF16);
    const int ids[4] = {3, 0, 9, 3};
    for (int s = 0; s < 4; ++s)
        for (int d = 0; d < 7; ++d) REQUIRE(e.floatAt(s * 7 + d) == table.floatAt(ids[s] * 7 + d));
    REQUIRE_THROWS_WITH(Fwd_Get_Rows(table, fromValues({2}, DType::I32, {1, 10})),
                        "Fwd_Get_Rows: token id 10 at position 1 is outside [0, 10) for table shape([10 7])");
    REQUIRE_THROWS_WITH(Fwd_Get_Rows(table, fromValues({1}, DType::I32, {-1})), Catch::Contains("token id -1"));
    REQUIRE_THROWS_WITH(Fwd_Get_Rows(table, Tensor({2}, DType::F32)), Catch::Contains("must be Int32, got F32"));
    REQUIRE(Fwd_Get_Rows(Tensor::shapeOnly({128256, 2048}, DType::BF16), Tensor::shapeOnly({22}, DType::I32)).shapeStr() ==
            "shape([22 2048])");
}
