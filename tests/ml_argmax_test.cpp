#include <catch2/catch.hpp>

#include "ml/ops.h"
#include "ml_test_util.h"

using namespace llama;
using namespace llama::ml;
using namespace llama::test;

TEST_CASE("Argmax returns the first of tied maxima", "[ml][argmax]") {
    REQUIRE(Argmax(fromValues({6}, DType::F32, {1, 5, -2, 5, 0, 5})) == 1);
    REQUIRE(Argmax(fromValues({4}, DType::BF16, {-3, -1, -2, -1})) == 1);
    REQUIRE(Argmax(fromValues({1}, DType::F32, {0})) == 0);
    REQUIRE(Argmax(fromValues({3}, DType::F32, {1, 2, 9})) == 2);
    REQUIRE(Argmax(Tensor::shapeOnly({128256}, DType::F32)) == 0);
    REQUIRE_THROWS_WITH(Argmax(Tensor({2, 3}, DType::F32)), "Argmax: expected a non-empty 1-D tensor, got shape([2 3])");
}
