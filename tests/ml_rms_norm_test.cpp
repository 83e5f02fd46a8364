#include <catch2/catch.hpp>

#include <cmath>

#include "ml/ops.h"
#include "ml_test_util.h"

using namespace llama;
using namespace llama::ml;
using namespace llama::test;

TEST_CASE("RMSNorm matches a double reference (F32)", "[ml][rms_norm]") {
    Tensor x = randomTensor({5, 67}, DType::F32, 1, -3, 3), w = randomTensor({67}, DType::F32, 2);
    Tensor y = ml::RMSNorm(x, w, 1e-5f);
    for (int64_t r = 0; r < 5; ++r) {
        double ms = 0;
        for (int64_t i = 0; i < 67; ++i) ms += double(x.floatAt(r * 67 + i)) * x.floatAt(r * 67 + i);
        double inv = 1.0 / std::sqrt(ms / 67 + 1e-5);
        for (int64_t i = 0; i < 67; ++i)
            REQUIRE(y.floatAt(r * 67 + i) == Approx(x.floatAt(r * 67 + i) * inv * w.floatAt(i)).epsilon(1e-5));
    }
}

TEST_CASE("RMSNorm on BF16 rounds the normalised value, then the product", "[ml][rms_norm][bf16]") {
    // x = [3 4]: mean(x^2) = 12.5 exactly, so the F32 steps are fully determined.
    Tensor x = fromValues({1, 2}, DType::BF16, {3, 4});
    Tensor w = fromValues({2}, DType::BF16, {1.09375f, 0.5078125f});
    Tensor y = ml::RMSNorm(x, w, 0.0f);
    REQUIRE(y.dtype() == DType::BF16);
    float inv = 1.0f / std::sqrt(12.5f);
    for (int i = 0; i < 2; ++i) {
        float n = roundToBF16(x.floatAt(i) * inv);
        REQUIRE(y.floatAt(i) == roundToBF16(n * w.floatAt(i)));
    }
    // With a single rounding the first element would differ: the double rounding is real.
    REQUIRE(roundToBF16(3 * inv * 1.09375f) != y.floatAt(0));

    Tensor xb = randomTensor({3, 67}, DType::BF16, 3, -2, 2), wb = randomTensor({67}, DType::BF16, 4);
    Tensor yb = ml::RMSNorm(xb, wb, 1e-5f);
    for (int64_t r = 0; r < 3; ++r) {
        double ms = 0;
        for (int64_t i = 0; i < 67; ++i) ms += double(xb.floatAt(r * 67 + i)) * xb.floatAt(r * 67 + i);
        double inv64 = 1.0 / std::sqrt(ms / 67 + 1e-5);
        for (int64_t i = 0; i < 67; ++i) {
            double n = roundToBF16(float(xb.floatAt(r * 67 + i) * inv64));
            double ref = n * wb.floatAt(i);
            REQUIRE(std::abs(yb.floatAt(r * 67 + i) - ref) <= bf16Step(ref));
        }
    }
}

TEST_CASE("RMSNorm shape-only and errors", "[ml][rms_norm]") {
    REQUIRE(ml::RMSNorm(Tensor::shapeOnly({22, 2048}, DType::BF16), Tensor::shapeOnly({2048}, DType::BF16), 1e-5f).shapeStr() ==
            "shape([22 2048])");
    REQUIRE_THROWS_WITH(ml::RMSNorm(Tensor({2, 4}, DType::F32), Tensor({5}, DType::F32), 1e-5f),
                        Catch::StartsWith("RMSNorm: weight shape([5]) does not match x shape([2 4])"));
}
