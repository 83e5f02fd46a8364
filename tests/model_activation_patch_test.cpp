// A patched activation (model/activation_patch.h): the rows of the positions it names, in the pass
// that holds them, replaced or added to; every other row, and a pass without them, untouched.
#include <catch2/catch.hpp>

#include "model/activation_patch.h"
#include "tensor/bfloat16.h"

using namespace llama;

namespace {
Tensor rows(int64_t n, int64_t dim, DType dtype) {
    Tensor t({n, dim}, DType::F32);
    for (int64_t i = 0; i < n * dim; ++i) t.mutableData<float>()[i] = float(i);
    if (dtype == DType::F32) return t;
    Tensor b({n, dim}, DType::BF16);
    for (int64_t i = 0; i < n * dim; ++i) b.mutableData<BFloat16>()[i] = BFloat16(float(i));
    return b;
}
float at(const Tensor& t, int64_t i) { return t.dtype() == DType::BF16 ? float(t.data<BFloat16>()[i]) : t.data<float>()[i]; }
}  // namespace

TEST_CASE("activation patch: one position replaced, in the pass that holds it", "[patch]") {
    for (DType dtype : {DType::F32, DType::BF16}) {
        const Tensor x = rows(3, 2, dtype);  // positions 4, 5, 6 of a decode pass from startPos 4
        const ActivationPatch p{ActivationPatch::Site::BlockOutput, 0, 5, {-1.0f, -2.0f}, "test"};
        const Tensor y = p.apply(x, Position(4));
        CHECK((at(y, 0) == 0 && at(y, 1) == 1 && at(y, 2) == -1 && at(y, 3) == -2 && at(y, 4) == 4 && at(y, 5) == 5));
        CHECK(at(x, 2) == 2);                  // the input is not written
        CHECK(at(p.apply(x, Position(6)), 0) == 0);      // position 5 is not in a pass from 6
        CHECK(p.describe() == "patch: block output of layer 1 at position 5 from test");
    }
}

TEST_CASE("activation patch: every position added to (one head's share)", "[patch]") {
    const Tensor x = rows(2, 2, DType::F32);
    const ActivationPatch p{ActivationPatch::Site::AttentionOutput, 2, -1, {10, 20, 30, 40}, "test", true, 3};
    const Tensor y = p.apply(x, Position(0));
    CHECK((at(y, 0) == 10 && at(y, 1) == 21 && at(y, 2) == 32 && at(y, 3) == 43));
    CHECK(at(p.apply(Tensor(rows(1, 2, DType::F32)), Position(1)), 0) == 30);  // a decode pass at position 1 takes row 1
    CHECK(p.describe() == "patch: head 4's output of layer 3 at every position from test");
    CHECK_THROWS_WITH(p.apply(rows(2, 3, DType::F32), Position(0)), Catch::Contains("4 values for an activation of width 3"));
}
