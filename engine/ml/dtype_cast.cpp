// Dtype conversions: BF16 -> F32 is exact; F32 -> BF16 rounds to nearest even (BFloat16).
#include <cstring>

#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"

namespace llama::ml {

namespace {

template <class To>
Tensor convertTo(const char* op, const Tensor& a, DType to) {
    detail::requireFloat(op, a, "a");
    if (!a.hasData()) return Tensor::shapeOnly(a.shape(), to);
    if (a.dtype() == to) return a.clone();
    Tensor y = Tensor::uninitialized(a.shape(), to);
    detail::visitFloat(a.dtype(), [&](auto tag) {
        using From = decltype(tag);
        const From* x = a.data<From>();
        To* out = y.mutableData<To>();
        // Split over the pool: the scores of all heads are 32M elements at 1,024 tokens.
        ThreadPool::global().parallelFor(
            a.numel(),
            [&](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) out[i] = detail::fromF32<To>(detail::toF32(x[i]));
            },
            detail::kElementsPerTask);
    });
    return y;
}

}  // namespace

Tensor ToFloat32(const Tensor& a) {
    const OpScope profile(OpKind::ToFloat32);
    return convertTo<float>("ToFloat32", a, DType::F32);
}
Tensor ToBFloat16(const Tensor& a) {
    const OpScope profile(OpKind::ToBFloat16);
    return convertTo<BFloat16>("ToBFloat16", a, DType::BF16);
}

}  // namespace llama::ml
