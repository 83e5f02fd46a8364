// Shapes held inside the tensor (tensor/dims.h): the part of std::vector's interface shapes use,
// and a clear refusal past kMaxDims instead of writing beyond the inline array.
#include <catch2/catch.hpp>

#include <vector>

#include "tensor/tensor.h"

using namespace llama;

TEST_CASE("dims: a shape reads and changes as a vector of its numbers", "[tensor][dims]") {
    Shape s{22, 4096};
    CHECK(s.size() == 2);
    CHECK(s.back() == 4096);
    s.push_back(8);
    s.insert(s.begin(), 1);
    CHECK(std::vector<int64_t>(s.begin(), s.end()) == std::vector<int64_t>{1, 22, 4096, 8});
    const std::vector<int64_t> more{3, 4};
    s.insert(s.begin() + 1, more.begin(), more.end());
    CHECK(s == Shape{1, 3, 4, 22, 4096, 8});
    s.erase(s.begin() + 1);
    CHECK(s == Shape{1, 4, 22, 4096, 8});
    CHECK(std::vector<int64_t>(s.rbegin(), s.rend()) == std::vector<int64_t>{8, 4096, 22, 4, 1});
    CHECK(Shape(3, 1) == Shape{1, 1, 1});
    CHECK_FALSE(Shape{2, 3} == Shape{2, 3, 1});
    CHECK(shapeToString(Tensor::shapeOnly({2, 3}, DType::F32).shape()) == "[2 3]");
    CHECK_THROWS_AS(s.at(5), std::out_of_range);
}

TEST_CASE("dims: more than eight dimensions are refused, saying so", "[tensor][dims]") {
    Shape s(8, 1);
    CHECK_THROWS_WITH(s.push_back(1), "a tensor of 9 dimensions: at most 8");
    CHECK(s.size() == 8);
    CHECK_THROWS_WITH(Shape({1, 1, 1, 1, 1, 1, 1, 1, 1}), "a tensor of 9 dimensions: at most 8");
    const std::vector<int64_t> nine(9, 2);
    CHECK_THROWS_WITH(Shape(nine.begin(), nine.end()), "a tensor of 9 dimensions: at most 8");
}
