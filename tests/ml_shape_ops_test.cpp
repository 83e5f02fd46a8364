#include <catch2/catch.hpp>

#include <array>
#include <cstring>

#include "ml/ops.h"
#include "ml_test_util.h"

using namespace llama;
using namespace llama::ml;
using namespace llama::test;

TEST_CASE("Transpose of a 3-D tensor, every pair of dims", "[ml][shape_ops]") {
    // 2 x 3 x 5, and sizes that cross the 64-element tiles and 8 x 8 blocks with tails.
    for (auto [D, dtype] : {std::pair{std::array<int64_t, 3>{2, 3, 5}, DType::BF16}, {{3, 70, 77}, DType::BF16}, {{3, 70, 77}, DType::F32}})
    for (auto [d0, d1] : {std::pair{0, 1}, {1, 2}, {0, 2}, {-1, 0}}) {
        Tensor a = randomTensor({D[0], D[1], D[2]}, dtype, 1);
        Tensor t = Transpose(a, d0, d1);
        int n0 = d0 < 0 ? d0 + 3 : d0, n1 = d1 < 0 ? d1 + 3 : d1;
        int64_t od[3] = {D[0], D[1], D[2]};
        std::swap(od[n0], od[n1]);
        REQUIRE(t.shape() == Shape{od[0], od[1], od[2]});
        for (int64_t i = 0; i < D[0]; ++i)
            for (int64_t j = 0; j < D[1]; ++j)
                for (int64_t k = 0; k < D[2]; ++k) {
                    int64_t idx[3] = {i, j, k};
                    std::swap(idx[n0], idx[n1]);
                    REQUIRE(t.floatAt((idx[0] * od[1] + idx[1]) * od[2] + idx[2]) == a.floatAt((i * D[1] + j) * D[2] + k));
                }
    }
}

TEST_CASE("Transpose(1, 2) of [B, S, H, HD] as attention does", "[ml][shape_ops]") {
    Tensor a = randomTensor({1, 3, 4, 5}, DType::F32, 2);
    Tensor t = Transpose(a, 1, 2);
    REQUIRE(t.shapeStr() == "shape([1 4 3 5])");
    for (int64_t s = 0; s < 3; ++s)
        for (int64_t h = 0; h < 4; ++h)
            for (int64_t d = 0; d < 5; ++d) REQUIRE(t.floatAt((h * 3 + s) * 5 + d) == a.floatAt((s * 4 + h) * 5 + d));
    REQUIRE_THROWS_WITH(Transpose(a, 0, 4), "Transpose: dim 4 out of range for shape([1 3 4 5])");
}

TEST_CASE("Transpose is a strided view - Contiguous and Reshape copy it into row-major order", "[ml][shape_ops]") {
    for (DType dtype : {DType::BF16, DType::F32}) {
        // [L, H, HD] -> [H, HD, L], the keys' two transposes; 21 rows cross the 8-row blocks.
        Tensor a = randomTensor({19, 3, 21}, dtype, 6);
        Tensor t = Transpose(Transpose(a, 0, 1), 1, 2);
        REQUIRE(t.shapeStr() == "shape([3 21 19])");
        REQUIRE_FALSE(t.isContiguous());
        REQUIRE(t.strides() == Strides{21, 1, 63});
        REQUIRE(t.viewData<char>() == a.rawData());  // no bytes moved
        REQUIRE_THROWS_WITH(t.rawData(), Catch::Contains("strided view"));
        REQUIRE_THROWS_WITH(Add(t, t), Catch::Contains("strided view"));

        Tensor c = Contiguous(t);
        REQUIRE(c.isContiguous());
        REQUIRE(c.shape() == t.shape());
        for (int64_t h = 0; h < 3; ++h)
            for (int64_t d = 0; d < 21; ++d)
                for (int64_t l = 0; l < 19; ++l) REQUIRE(c.floatAt((h * 21 + d) * 19 + l) == a.floatAt((l * 3 + h) * 21 + d));
        Tensor clone = t.clone();
        REQUIRE(std::memcmp(clone.rawData(), c.rawData(), c.byteSize()) == 0);

        Tensor r = Reshape(Transpose(a, 0, 1), {3, 19 * 21});
        REQUIRE(r.isContiguous());
        REQUIRE(r.floatAt(19 * 21 + 21 + 2) == a.floatAt((1 * 3 + 1) * 21 + 2));
        // Transposing back gives row-major strides again: the original bytes, readable as before.
        REQUIRE(Transpose(Transpose(a, 0, 2), 0, 2).rawData() == a.rawData());
        REQUIRE(Contiguous(a).rawData() == a.rawData());
    }
    REQUIRE_FALSE(Transpose(Tensor::shapeOnly({4, 5}, DType::BF16), 0, 1).hasData());
}

TEST_CASE("views refuse what they cannot express, naming the op", "[ml][shape_ops]") {
    Tensor a = randomTensor({2, 3, 4}, DType::BF16, 7);
    REQUIRE_THROWS_WITH(RepeatInterleave(a, 1, 0), "RepeatInterleave: repeats must be at least 1, got 0");
    REQUIRE_THROWS_WITH(RepeatInterleave(a, 3, 2), "RepeatInterleave: dim 3 out of range for shape([2 3 4])");
    Tensor blocks({2, 32}, DType::Q8_0);  // quantized: elements are not addressable one by one
    REQUIRE_THROWS_WITH(Transpose(blocks, 0, 1), Catch::StartsWith("Transpose: cannot transpose blocks of"));
    REQUIRE_THROWS_WITH(RepeatInterleave(blocks, 0, 2), Catch::StartsWith("RepeatInterleave: cannot repeat blocks of"));
    // A repeated view reads each index `repeats` times; Reshape copies it into row-major order.
    Tensor r = Reshape(RepeatInterleave(a, 1, 2), {2, 24});
    for (int64_t j = 0; j < 6; ++j)
        for (int64_t d = 0; d < 4; ++d) REQUIRE(r.floatAt(24 + j * 4 + d) == a.floatAt(12 + j / 2 * 4 + d));
}

TEST_CASE("Reshape shares bytes - Slice and SetSlice copy rows", "[ml][shape_ops]") {
    Tensor a = randomTensor({6, 4}, DType::BF16, 3);
    Tensor r = Reshape(a, {2, 3, 4});
    REQUIRE(r.rawData() == a.rawData());
    REQUIRE(r.shapeStr() == "shape([2 3 4])");
    REQUIRE_THROWS_WITH(Reshape(a, {5, 5}), "Reshape: cannot reshape shape([6 4]) to shape([5 5])");

    Tensor s = Slice(a, 2, 5);
    REQUIRE(s.shapeStr() == "shape([3 4])");
    for (int64_t i = 0; i < 12; ++i) REQUIRE(s.floatAt(i) == a.floatAt(8 + i));
    REQUIRE(Slice(a, 3, 3).shapeStr() == "shape([0 4])");
    REQUIRE_THROWS_WITH(Slice(a, 4, 7), "Slice: rows [4, 7) out of range for shape([6 4])");

    Tensor cache({10, 4}, DType::BF16);
    SetSlice(cache, 5, s);
    for (int64_t i = 0; i < 40; ++i) REQUIRE(cache.floatAt(i) == (i >= 20 && i < 32 ? s.floatAt(i - 20) : 0.0f));
    REQUIRE_THROWS_WITH(SetSlice(cache, 8, s), "SetSlice: rows [8, 11) out of range for dst shape([10 4])");
    REQUIRE_THROWS_WITH(SetSlice(cache, 0, Tensor({2, 5}, DType::BF16)),
                        "SetSlice: rows of shape([2 5]) do not match rows of shape([10 4])");
    REQUIRE_THROWS_WITH(SetSlice(cache, 0, Tensor({2, 4}, DType::F32)), Catch::Contains("is F32 but dst"));
}

TEST_CASE("ViewAsComplex64 and ViewAsFloat32 round trip over the same bytes", "[ml][shape_ops][rope]") {
    Tensor a = randomTensor({3, 2, 8}, DType::F32, 4);
    Tensor c = ViewAsComplex64WithReshape(a, {3, 2, 4});
    REQUIRE(c.dtype() == DType::Complex64);
    REQUIRE(c.rawData() == a.rawData());
    const Complex64* z = c.data<Complex64>();
    for (int64_t i = 0; i < 24; ++i) {
        REQUIRE(z[i].real() == a.floatAt(2 * i));
        REQUIRE(z[i].imag() == a.floatAt(2 * i + 1));
    }
    Tensor back = ViewAsFloat32WithReshape(c, {3, 16});
    REQUIRE(back.shapeStr() == "shape([3 16])");
    REQUIRE(back.dtype() == DType::F32);
    for (int64_t i = 0; i < 48; ++i) REQUIRE(back.floatAt(i) == a.floatAt(i));
    REQUIRE_THROWS_WITH(ViewAsComplex64WithReshape(Tensor({3, 5}, DType::F32), {3, 2}),
                        Catch::StartsWith("ViewAsComplex64WithReshape: cannot view shape([3 5]) as complex shape([3 2])"));
    REQUIRE_THROWS_WITH(ViewAsFloat32WithReshape(a, {48}), Catch::Contains("must be Complex64, got F32"));
}

TEST_CASE("Shape ops pass shape-only tensors through", "[ml][shape_ops]") {
    Tensor a = Tensor::shapeOnly({1, 22, 32, 64}, DType::BF16);
    REQUIRE(Transpose(a, 1, 2).shapeStr() == "shape([1 32 22 64])");
    REQUIRE(Reshape(a, {22, 2048}).shapeStr() == "shape([22 2048])");
    REQUIRE_FALSE(Slice(Tensor::shapeOnly({22, 8}, DType::F32), 0, 3).hasData());
    Tensor cache = Tensor::shapeOnly({2048, 8}, DType::BF16);
    SetSlice(cache, 0, Tensor::shapeOnly({22, 8}, DType::BF16));
    Tensor c = ViewAsComplex64WithReshape(Tensor::shapeOnly({22, 32, 64}, DType::F32), {22, 32, 32});
    REQUIRE((c.dtype() == DType::Complex64 && !c.hasData()));
    REQUIRE(ViewAsFloat32WithReshape(c, {22, 32, 64}).dtype() == DType::F32);
}
