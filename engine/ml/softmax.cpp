// Softmax along one dimension of an F32 tensor, the way PyTorch's CPU kernel does it:
// subtract the row maximum, exponentiate (a vectorised exp, as PyTorch's), multiply by the
// reciprocal of the sum.
// exp(-inf - max) is exactly 0, so masked positions get probability 0.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ml/exp_approx.h"
#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"

namespace llama::ml {

Tensor Softmax(const Tensor& a, int dim) {
    const OpScope profile(OpKind::Softmax);
    constexpr const char* op = "Softmax";
    detail::requireDType(op, a, DType::F32, "a");
    int rank = int(a.rank());
    int d = dim < 0 ? dim + rank : dim;
    if (d < 0 || d >= rank) detail::fail(op, "dim " + std::to_string(dim) + " out of range for " + a.shapeStr());
    if (!a.hasData()) return Tensor::shapeOnly(a.shape(), a.dtype());

    // View a as [outer, len, inner]: softmax runs over len, elements of one row are `inner` apart.
    int64_t len = a.dim(d), inner = 1;
    for (int i = d + 1; i < rank; ++i) inner *= a.dim(i);
    int64_t outer = len * inner != 0 ? a.numel() / (len * inner) : 0;
    Tensor y = Tensor::uninitialized(a.shape(), DType::F32);
    const float* x = a.data<float>();
    float* out = y.mutableData<float>();
    // Rows are independent: a 1024-token prefill has heads x 1024 of them per layer.
    ThreadPool::global().parallelFor(
        outer * inner,
        [&](int64_t r0, int64_t r1) {
            for (int64_t r = r0; r < r1; ++r) {
                const int64_t o = r / inner, in = r % inner;
                const float* xr = x + o * len * inner + in;
                float* yr = out + o * len * inner + in;
                float mx = -std::numeric_limits<float>::infinity();
                for (int64_t i = 0; i < len; ++i) mx = std::max(mx, xr[i * inner]);
                // The exponentials in a loop of their own, which the compiler vectorises
                // (exp_approx.h); the sum stays in order.
                for (int64_t i = 0; i < len; ++i) yr[i * inner] = detail::expApprox(xr[i * inner] - mx);
                float sum = 0.0f;
                for (int64_t i = 0; i < len; ++i) sum += yr[i * inner];
                float scale = 1.0f / sum;
                for (int64_t i = 0; i < len; ++i) yr[i * inner] *= scale;
            }
        },
        std::max<int64_t>(1, 8192 / std::max<int64_t>(1, len)));
    return y;
}

}  // namespace llama::ml
