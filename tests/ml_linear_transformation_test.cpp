#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "ml/kernels/kernel_set.h"
#include "ml/ops.h"
#include "ml_test_util.h"

using namespace llama;
using namespace llama::ml;
using namespace llama::test;

namespace {

// y[s][o] = sum_i x[s][i] * w[o][i], in double.
std::vector<double> reference(const Tensor& x, const Tensor& w) {
    auto xv = toDoubles(x), wv = toDoubles(w);
    int64_t in = w.dim(1), out = w.dim(0), rows = x.numel() / in;
    std::vector<double> y(size_t(rows * out));
    for (int64_t s = 0; s < rows; ++s)
        for (int64_t o = 0; o < out; ++o) {
            double acc = 0;
            for (int64_t i = 0; i < in; ++i) acc += xv[size_t(s * in + i)] * wv[size_t(o * in + i)];
            y[size_t(s * out + o)] = acc;
        }
    return y;
}

void checkAgainstReference(const Shape& xShape, int64_t out, DType xType, DType wType, unsigned seed) {
    int64_t in = xShape.back();
    Tensor x = randomTensor(xShape, xType, seed);
    Tensor w = randomTensor({out, in}, wType, seed + 1);
    Tensor y = LinearTransformation(x, w);
    Shape want = xShape;
    want.back() = out;
    REQUIRE(y.shape() == want);
    REQUIRE(y.dtype() == xType);
    auto ref = reference(x, w);
    for (size_t i = 0; i < ref.size(); ++i) {
        double got = y.floatAt(int64_t(i));
        if (xType == DType::BF16) {
            // Rounded once from an F32 sum: the rounded exact value or its neighbour.
            INFO("element " << i << " got " << got << " want " << ref[i]);
            REQUIRE(std::abs(got - ref[i]) <= bf16Step(ref[i]));
        } else {
            REQUIRE(got == Approx(ref[i]).margin(1e-5 * std::sqrt(double(in))));
        }
    }
}

}  // namespace

TEST_CASE("LinearTransformation matches a double reference on odd sizes", "[ml][linear]") {
    // in = 67 and 83 leave scalar tails after the 32- and 8-wide loops, out = 13 partial tiles of
    // weight rows; seq 1-5 take the streaming path, 6, 9 and 13 the blocked one with partial x tiles.
    for (DType xType : {DType::F32, DType::BF16})
        for (DType wType : {DType::F32, DType::BF16})
            for (int64_t in : {67, 83})
                for (int64_t seq : {1, 2, 5, 6, 9, 13}) checkAgainstReference({seq, in}, 13, xType, wType, unsigned(seq + in));
}

TEST_CASE("LinearTransformation with several weight blocks and leading dims", "[ml][linear]") {
    checkAgainstReference({1, 7, 2051}, 50, DType::BF16, DType::BF16, 11);  // prefill, 3 blocks of weight rows
    checkAgainstReference({1, 1, 2051}, 301, DType::BF16, DType::BF16, 12);  // decode split across the pool
    checkAgainstReference({3}, 1, DType::F32, DType::F32, 13);               // shorter than one SIMD vector
}

TEST_CASE("LinearTransformation rounds a BF16 result once", "[ml][linear][bf16]") {
    // Summed in bf16 step by step each 2^-9 would be lost (1 + 2^-9 rounds back to 1); accumulated
    // in F32, 1 + 3*2^-9 is rounded once, up to 1 + 2^-7.
    Tensor x = fromValues({1, 4}, DType::BF16, {1, 1, 1, 1});
    Tensor w = fromValues({1, 4}, DType::BF16, {1, std::ldexp(1.0f, -9), std::ldexp(1.0f, -9), std::ldexp(1.0f, -9)});
    Tensor y = LinearTransformation(x, w);
    REQUIRE(y.floatAt(0) == 1.0f + std::ldexp(1.0f, -7));
}

TEST_CASE("LinearTransformation shape-only and shape errors", "[ml][linear]") {
    Tensor y = LinearTransformation(Tensor::shapeOnly({22, 2048}, DType::BF16), Tensor::shapeOnly({256, 2048}, DType::BF16));
    REQUIRE_FALSE(y.hasData());
    REQUIRE(y.shapeStr() == "shape([22 256])");
    REQUIRE(y.dtype() == DType::BF16);
    REQUIRE_THROWS_WITH(
        LinearTransformation(Tensor({2, 5}, DType::F32), Tensor({3, 4}, DType::F32)),
        Catch::StartsWith("LinearTransformation: x shape([2 5]) does not match weights shape([3 4])"));
    REQUIRE_THROWS_WITH(LinearTransformation(Tensor({2, 4}, DType::I32), Tensor({3, 4}, DType::F32)),
                        Catch::Contains("must be F32 or BF16"));
}

TEST_CASE("AddLinearTransformation adds the product's bits to the sum, on every kernel path", "[ml][linear][bitidentity]") {
    // A weight's gradient takes each window's dyᵀ·x this way: each output summed from +0, then
    // added once, as AccumulateInto(sum, LinearTransformation(x, w, F32)) would. Decode (1 row), a
    // few rows and a prefill's many, BF16 operands (training's) and F32 ones, a part block of
    // weight rows.
    for (const std::string& path : ml::kernels::supportedPaths()) {
        UsingKernels use(path);
        for (const int64_t rows : {1, 3, 37})
            for (const DType type : {DType::BF16, DType::F32}) {
                const Tensor x = randomTensor({rows, 70}, type, 21), w = randomTensor({29, 70}, type, 22);
                Tensor sum = randomTensor({rows, 29}, DType::F32, 23);
                const Tensor product = LinearTransformation(x, w, DType::F32);
                std::vector<float> expected(size_t(sum.numel()));
                for (int64_t i = 0; i < sum.numel(); ++i) expected[size_t(i)] = sum.data<float>()[i] + product.data<float>()[i];
                AddLinearTransformation(sum, x, w);
                INFO(path << ", " << rows << " rows of " << dtypeName(type));
                REQUIRE(std::memcmp(sum.data<float>(), expected.data(), expected.size() * sizeof(float)) == 0);
            }
    }
    Tensor wrong({2, 3}, DType::F32);
    REQUIRE_THROWS_WITH(AddLinearTransformation(wrong, Tensor({2, 4}, DType::F32), Tensor({5, 4}, DType::F32)),
                        Catch::StartsWith("AddLinearTransformation: sum shape([2 3]) is not the shape of x · weightsᵀ"));
}
