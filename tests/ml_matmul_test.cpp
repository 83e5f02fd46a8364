#include <catch2/catch.hpp>

#include <cmath>

#include "ml/ops.h"
#include "ml_test_util.h"

using namespace llama;
using namespace llama::ml;
using namespace llama::test;

TEST_CASE("MatMul matches a double reference per batch", "[ml][matmul]") {
    for (DType type : {DType::F32, DType::BF16}) {
        const int64_t B = 3, M = 5, K = 67, N = 13;
        Tensor a = randomTensor({B, M, K}, type, 1), b = randomTensor({B, K, N}, type, 2);
        Tensor y = MatMul(a, b);
        REQUIRE(y.shapeStr() == "shape([3 5 13])");
        REQUIRE(y.dtype() == type);
        auto av = toDoubles(a), bv = toDoubles(b);
        for (int64_t bi = 0; bi < B; ++bi)
            for (int64_t m = 0; m < M; ++m)
                for (int64_t n = 0; n < N; ++n) {
                    double ref = 0;
                    for (int64_t k = 0; k < K; ++k) ref += av[size_t((bi * M + m) * K + k)] * bv[size_t((bi * K + k) * N + n)];
                    double got = y.floatAt((bi * M + m) * N + n);
                    if (type == DType::BF16)
                        REQUIRE(std::abs(got - ref) <= bf16Step(ref));
                    else
                        REQUIRE(got == Approx(ref).margin(1e-5));
                }
    }
}

TEST_CASE("MatMul shape-only and errors", "[ml][matmul]") {
    Tensor y = MatMul(Tensor::shapeOnly({32, 22, 64}, DType::BF16), Tensor::shapeOnly({32, 64, 22}, DType::BF16));
    REQUIRE_FALSE(y.hasData());
    REQUIRE(y.shapeStr() == "shape([32 22 22])");
    REQUIRE_THROWS_WITH(MatMul(Tensor({2, 3, 4}, DType::F32), Tensor({2, 5, 6}, DType::F32)),
                        Catch::StartsWith("MatMul: cannot multiply shape([2 3 4]) by shape([2 5 6])"));
}
