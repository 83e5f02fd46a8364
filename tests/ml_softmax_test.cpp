#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "ml/ops.h"
#include "ml_test_util.h"

using namespace llama;
using namespace llama::ml;
using namespace llama::test;

TEST_CASE("Softmax over the last dim: rows sum to 1, -inf gives 0", "[ml][softmax]") {
    const float inf = std::numeric_limits<float>::infinity();
    Tensor scores = randomTensor({2, 5, 67}, DType::F32, 1, -10, 10);
    // Mask the upper part of every row as the causal mask does.
    for (int64_t r = 0; r < 10; ++r)
        for (int64_t c = 30 + r; c < 67; ++c) scores.mutableData<float>()[r * 67 + c] = -inf;
    Tensor p = Softmax(scores, -1);
    for (int64_t r = 0; r < 10; ++r) {
        double mx = -inf, sum = 0, got = 0;
        for (int64_t c = 0; c < 67; ++c) mx = std::max<double>(mx, scores.floatAt(r * 67 + c));
        for (int64_t c = 0; c < 67; ++c) sum += std::exp(double(scores.floatAt(r * 67 + c)) - mx);
        for (int64_t c = 0; c < 67; ++c) {
            double ref = std::exp(double(scores.floatAt(r * 67 + c)) - mx) / sum;
            REQUIRE(p.floatAt(r * 67 + c) == Approx(ref).epsilon(1e-5).margin(1e-9));
            if (c >= 30 + r) REQUIRE(p.floatAt(r * 67 + c) == 0.0f);
            got += p.floatAt(r * 67 + c);
        }
        REQUIRE(got == Approx(1.0).epsilon(1e-5));
    }
}

TEST_CASE("Softmax of an all -inf row is NaN, as in PyTorch", "[ml][softmax]") {
    const float inf = std::numeric_limits<float>::infinity();
    Tensor p = Softmax(fromValues({1, 2}, DType::F32, {-inf, -inf}), -1);
    REQUIRE(std::isnan(p.floatAt(0)));
    REQUIRE(std::isnan(p.floatAt(1)));
}

TEST_CASE("Softmax over a middle dim", "[ml][softmax]") {
    Tensor a = randomTensor({3, 4, 5}, DType::F32, 2, -3, 3);
    Tensor p = Softmax(a, 1);
    for (int64_t o = 0; o < 3; ++o)
        for (int64_t in = 0; in < 5; ++in) {
            double sum = 0;
            for (int64_t i = 0; i < 4; ++i) sum += std::exp(double(a.floatAt((o * 4 + i) * 5 + in)));
            for (int64_t i = 0; i < 4; ++i) {
                int64_t idx = (o * 4 + i) * 5 + in;
                REQUIRE(p.floatAt(idx) == Approx(std::exp(double(a.floatAt(idx))) / sum).epsilon(1e-5));
            }
        }
}

TEST_CASE("Softmax shape-only and errors", "[ml][softmax]") {
    REQUIRE(Softmax(Tensor::shapeOnly({1, 32, 22, 22}, DType::F32), -1).shapeStr() == "shape([1 32 22 22])");
    REQUIRE_THROWS_WITH(Softmax(Tensor({2, 2}, DType::BF16), -1), "Softmax: a shape([2 2]) must be F32, got BF16");
    REQUIRE_THROWS_WITH(Softmax(Tensor({2, 2}, DType::F32), 2), "Softmax: dim 2 out of range for shape([2 2])");
}
