// Meta's RMSNorm: self._norm(x.float()).type_as(x) * self.weight, i.e.
//   n = x * rsqrt(mean(x^2) + eps)   in F32 (rsqrt as 1/sqrt, like PyTorch's CPU kernel),
//   n rounded to x's dtype,
//   n * weight                       computed in F32, rounded to x's dtype.
// The two roundings are deliberate: they are what the BF16 reference model does.
#include <algorithm>
#include <cmath>

#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"

namespace llama::ml {

namespace {

template <class X, class W>
void normRows(const X* x, const W* w, X* y, int64_t rows, int64_t dim, float eps) {
    using detail::fromF32;
    using detail::toF32;
    for (int64_t r = 0; r < rows; ++r) {
        const X* xr = x + r * dim;
        X* yr = y + r * dim;
        // Accumulate in double: the F32 mean PyTorch produces is the correctly rounded one up to
        // its summation order; a double sum gets as close to that as any order can.
        double sq = 0;
        for (int64_t i = 0; i < dim; ++i) sq += double(toF32(xr[i])) * toF32(xr[i]);
        float mean = float(sq) / float(dim);
        float inv = 1.0f / std::sqrt(mean + eps);
        for (int64_t i = 0; i < dim; ++i) {
            float n = toF32(fromF32<X>(toF32(xr[i]) * inv));
            yr[i] = fromF32<X>(n * toF32(w[i]));
        }
    }
}

}  // namespace

Tensor RMSNorm(const Tensor& x, const Tensor& weight, float eps) {
    const OpScope profile(OpKind::RMSNorm);
    constexpr const char* op = "RMSNorm";
    detail::requireFloat(op, x, "x");
    detail::requireFloat(op, weight, "weight");
    if (x.rank() < 1 || weight.rank() != 1 || weight.dim(0) != x.dim(-1))
        detail::fail(op, "weight " + weight.shapeStr() + " does not match x " + x.shapeStr() +
                             " (expected weight [dim] for x [..., dim])");
    if (!x.hasData() || !weight.hasData()) return Tensor::shapeOnly(x.shape(), x.dtype());
    Tensor y = Tensor::uninitialized(x.shape(), x.dtype());
    int64_t dim = x.dim(-1);
    int64_t rows = dim ? x.numel() / dim : 0;
    detail::visitFloat(x.dtype(), [&](auto xTag) {
        using X = decltype(xTag);
        detail::visitFloat(weight.dtype(), [&](auto wTag) {
            using W = decltype(wTag);
            // Rows are independent. A prefill's rows split over the pool: on one thread, the rows the
            // other core had just written cost a small model's norm more at two threads than at one.
            ThreadPool::global().parallelFor(
                rows,
                [&](int64_t r0, int64_t r1) {
                    normRows(x.data<X>() + r0 * dim, weight.data<W>(), y.mutableData<X>() + r0 * dim, r1 - r0, dim, eps);
                },
                std::max<int64_t>(1, detail::kNormElementsPerTask / std::max<int64_t>(1, dim)));
        });
    });
    return y;
}

}  // namespace llama::ml
