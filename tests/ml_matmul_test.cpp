#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "ml/ops.h"
#include "ml_test_util.h"

using namespace llama;
using namespace llama::ml;
using namespace llama::test;

TEST_CASE("MatMul matches a double reference per batch", "[ml][matmul]") {
    // N = 13 and 37 reach the column tiles, the tail's whole vectors of columns and its single
    // columns on every path (4, 8 or 16 floats a vector).
    for (DType type : {DType::F32, DType::BF16})
        for (int64_t N : {13, 37}) {
            const int64_t B = 3, M = 5, K = 67;
            Tensor a = randomTensor({B, M, K}, type, 1), b = randomTensor({B, K, N}, type, 2);
            Tensor y = MatMul(a, b);
            REQUIRE(y.shape() == Shape{B, M, N});
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

TEST_CASE("MatMul reads transposed views exactly as their row-major copies", "[ml][matmul]") {
    // Attention's operands: xq [S, H, HD] and keys/values [L, H, HD] (repeated, row-major), made
    // head-major by Transpose views; keys transposed once more to [H, HD, L]. Odd sizes cross the
    // column tiles, the 8 x 8 transposed blocks of the keys' packing, and the pool's chunks.
    for (DType type : {DType::BF16, DType::F32})
        for (auto [S, L] : {std::pair<int64_t, int64_t>{1, 77}, {5, 131}, {37, 37}}) {
            const int64_t H = 6, HD = 20;
            Tensor xq = Transpose(randomTensor({S, H, HD}, type, 3), 0, 1);
            Tensor keysRows = randomTensor({L, H, HD}, type, 4);
            Tensor keys = Transpose(Transpose(keysRows, 0, 1), 1, 2);
            Tensor values = Transpose(randomTensor({L, H, HD}, type, 5), 0, 1);
            REQUIRE_FALSE(xq.isContiguous());
            REQUIRE_FALSE(keys.isContiguous());

            Tensor scores = MatMul(xq, keys);
            REQUIRE(scores.shape() == Shape{H, S, L});
            Tensor expected = MatMul(Contiguous(xq), Contiguous(keys));
            REQUIRE(std::memcmp(scores.rawData(), expected.rawData(), scores.byteSize()) == 0);

            Tensor output = MatMul(scores, values);
            REQUIRE(output.shape() == Shape{H, S, HD});
            Tensor expectedOutput = MatMul(scores, Contiguous(values));
            REQUIRE(std::memcmp(output.rawData(), expectedOutput.rawData(), output.byteSize()) == 0);

            // And the row-major copies themselves hold the right elements (one spot check per head).
            for (int64_t h = 0; h < H; ++h)
                REQUIRE(Contiguous(keys).floatAt((h * HD + HD - 1) * L + L - 1) == keysRows.floatAt(((L - 1) * H + h) * HD + HD - 1));
        }
}

TEST_CASE("MatMul of causal probabilities leaves out their zeros and gives the in-order sum's bits", "[ml][matmul]") {
    // Attention's products against a causal mask's zeros: the probabilities [H, S, S] (0 past each
    // query) times values, and their transpose (0 before each key) times the output's gradient.
    // MatMul leaves the zeros' columns out of each tile; every output must still be the F32 sum
    // of every product from +0 in increasing k. S = 37 ends in a part tile; negative zeros and a
    // row of zeros are in the probabilities too.
    const int64_t H = 3, S = 37, HD = 20;
    Tensor probs = randomTensor({H, S, S}, DType::F32, 6, 0.0f, 1.0f);
    for (int64_t h = 0; h < H; ++h)
        for (int64_t q = 0; q < S; ++q)
            for (int64_t k = 0; k < S; ++k)
                if (k > q || q == 11) probs.mutableData<float>()[(h * S + q) * S + k] = (k % 3 == 0) ? -0.0f : 0.0f;
    Tensor values = randomTensor({H, S, HD}, DType::F32, 7);
    for (const Tensor& a : {probs, Transpose(probs, 1, 2)}) {
        Tensor y = MatMul(a, values);
        const Tensor ac = Contiguous(a);
        for (int64_t h = 0; h < H; ++h)
            for (int64_t m = 0; m < S; ++m)
                for (int64_t n = 0; n < HD; ++n) {
                    float sum = 0.0f;
                    for (int64_t k = 0; k < S; ++k) {
                        const float product = ac.data<float>()[(h * S + m) * S + k] * values.data<float>()[(h * S + k) * HD + n];
                        sum += product;
                    }
                    const float got = y.data<float>()[(h * S + m) * HD + n];
                    REQUIRE(std::memcmp(&got, &sum, sizeof(float)) == 0);
                }
    }
}
