#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "ml/ops.h"
#include "ml_test_util.h"

using namespace llama;
using namespace llama::ml;
using namespace llama::test;

TEST_CASE("Add and MultiplyElementwise on BF16 round the F32 result once", "[ml][elementwise][bf16]") {
    Tensor a = randomTensor({5, 67}, DType::BF16, 1, -4, 4), b = randomTensor({5, 67}, DType::BF16, 2, -4, 4);
    Tensor sum = Add(a, b), prod = MultiplyElementwise(a, b);
    REQUIRE(sum.dtype() == DType::BF16);
    for (int64_t i = 0; i < a.numel(); ++i) {
        REQUIRE(sum.floatAt(i) == roundToBF16(a.floatAt(i) + b.floatAt(i)));
        REQUIRE(prod.floatAt(i) == roundToBF16(a.floatAt(i) * b.floatAt(i)));
    }
    // Exactly on a tie: 1 + 2^-8 rounds to even (1), 1 + 3*2^-8 up to 1 + 2^-6.
    Tensor one = fromValues({2}, DType::BF16, {1.0f, 1.0f + std::ldexp(1.0f, -7)});
    Tensor tiny = fromValues({2}, DType::BF16, {std::ldexp(1.0f, -8), std::ldexp(1.0f, -8)});
    Tensor t = Add(one, tiny);
    REQUIRE(t.floatAt(0) == 1.0f);
    REQUIRE(t.floatAt(1) == 1.0f + std::ldexp(1.0f, -6));
}

TEST_CASE("Add broadcasts the causal mask over the heads", "[ml][elementwise]") {
    const float inf = std::numeric_limits<float>::infinity();
    Tensor scores = randomTensor({1, 3, 4, 5}, DType::F32, 3);
    Tensor mask = TriangularUpper(Full({4, 5}, DType::F32, -inf), 2);
    Tensor y = Add(scores, mask);
    REQUIRE(y.shape() == scores.shape());
    for (int64_t h = 0; h < 3; ++h)
        for (int64_t r = 0; r < 4; ++r)
            for (int64_t c = 0; c < 5; ++c) {
                int64_t i = (h * 4 + r) * 5 + c;
                float want = c - r >= 2 ? -inf : scores.floatAt(i);
                REQUIRE(y.floatAt(i) == want);
            }
    REQUIRE_THROWS_WITH(Add(scores, Tensor({4, 6}, DType::F32)),
                        "Add: cannot broadcast shape([4 6]) to shape([1 3 4 5])");
}

TEST_CASE("MultiplyElementwise broadcasts freqs_cis over the heads (Complex64)", "[ml][elementwise][rope]") {
    const int64_t S = 3, H = 4, HD2 = 5;
    Tensor xq = ViewAsComplex64WithReshape(randomTensor({S, H, 2 * HD2}, DType::F32, 4), {S, H, HD2});
    Tensor freqs = ViewAsComplex64WithReshape(randomTensor({S, 1, 2 * HD2}, DType::F32, 5), {S, 1, HD2});
    Tensor y = MultiplyElementwise(xq, freqs);
    REQUIRE(y.dtype() == DType::Complex64);
    REQUIRE(y.shapeStr() == "shape([3 4 5])");
    const Complex64* x = xq.data<Complex64>();
    const Complex64* f = freqs.data<Complex64>();
    const Complex64* out = y.data<Complex64>();
    for (int64_t s = 0; s < S; ++s)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t j = 0; j < HD2; ++j) {
                Complex64 a = x[(s * H + h) * HD2 + j], b = f[s * HD2 + j];
                // Each product rounded to F32, then summed: the value PyTorch's kernel computes.
                float ac = a.real() * b.real(), bd = a.imag() * b.imag(), ad = a.real() * b.imag(), bc = a.imag() * b.real();
                volatile float re = ac, im = ad;  // keep the products rounded (no fused multiply-add)
                REQUIRE(out[(s * H + h) * HD2 + j].real() == re - bd);
                REQUIRE(out[(s * H + h) * HD2 + j].imag() == im + bc);
            }
    REQUIRE_THROWS_WITH(MultiplyElementwise(xq, Tensor({S, H, HD2}, DType::F32)),
                        Catch::StartsWith("MultiplyElementwise: a shape([3 4 5]) is Complex64 but b"));
}

TEST_CASE("DivToScalar and Silu compute in F32 and round once", "[ml][elementwise][bf16]") {
    Tensor a = randomTensor({7, 13}, DType::BF16, 6, -8, 8);
    Tensor d = DivToScalar(a, 8.0f), s = Silu(a);
    REQUIRE(s.dtype() == DType::BF16);
    for (int64_t i = 0; i < a.numel(); ++i) {
        double x = a.floatAt(i);
        REQUIRE(d.floatAt(i) == roundToBF16(float(x) / 8.0f));
        double silu = x / (1.0 + std::exp(-x));
        REQUIRE(std::abs(s.floatAt(i) - silu) <= bf16Step(silu) / 2 * 1.01);
    }
    Tensor f = randomTensor({67}, DType::F32, 7, -8, 8);
    Tensor sf = Silu(f);
    for (int64_t i = 0; i < f.numel(); ++i) {
        double x = f.floatAt(i);
        REQUIRE(sf.floatAt(i) == Approx(x / (1.0 + std::exp(-x))).epsilon(1e-6).margin(1e-7));
    }
}

TEST_CASE("Elementwise ops pass shape-only tensors through", "[ml][elementwise]") {
    Tensor a = Tensor::shapeOnly({1, 32, 22, 22}, DType::BF16);
    REQUIRE(Add(a, Tensor::shapeOnly({22, 22}, DType::BF16)).shapeStr() == "shape([1 32 22 22])");
    REQUIRE_FALSE(Silu(a).hasData());
    REQUIRE(DivToScalar(a, 2).dtype() == DType::BF16);
    Tensor c = MultiplyElementwise(Tensor::shapeOnly({22, 32, 32}, DType::Complex64),
                                   Tensor::shapeOnly({22, 1, 32}, DType::Complex64));
    REQUIRE((c.shapeStr() == "shape([22 32 32])" && !c.hasData() && c.dtype() == DType::Complex64));
}
