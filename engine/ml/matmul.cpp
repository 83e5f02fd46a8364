// Batched MatMul for attention (scores = q·kᵀ, output = probs·v): small matrices, many of them.
// Both operands are widened to F32 once; each output row is accumulated in F32 over k in
// i-k-j order (a row of b is contiguous, so the inner loop vectorises) and rounded once to the
// result dtype, like PyTorch's bf16 bmm. The pool splits the batch × rows of the output.
#include <algorithm>
#include <vector>

#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"

namespace llama::ml {

namespace {

std::vector<float> widened(const Tensor& t) {
    std::vector<float> f(size_t(t.numel()));
    detail::visitFloat(t.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const T* p = t.data<T>();
        for (size_t i = 0; i < f.size(); ++i) f[i] = detail::toF32(p[i]);
    });
    return f;
}

}  // namespace

Tensor MatMul(const Tensor& a, const Tensor& b) {
    const OpScope profile(OpKind::MatMul);
    constexpr const char* op = "MatMul";
    detail::requireFloat(op, a, "a");
    detail::requireFloat(op, b, "b");
    if (a.rank() != 3 || b.rank() != 3 || a.dim(0) != b.dim(0) || a.dim(2) != b.dim(1))
        detail::fail(op, "cannot multiply " + a.shapeStr() + " by " + b.shapeStr() + " (expected [B, M, K] and [B, K, N])");
    int64_t B = a.dim(0), M = a.dim(1), K = a.dim(2), N = b.dim(2);
    Shape outShape{B, M, N};
    if (!a.hasData() || !b.hasData()) return Tensor::shapeOnly(outShape, a.dtype());

    std::vector<float> af = widened(a), bf = widened(b);
    Tensor y(outShape, a.dtype());
    detail::visitFloat(a.dtype(), [&](auto tag) {
        using Y = decltype(tag);
        Y* out = y.mutableData<Y>();
        int64_t minRows = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, K * N));
        ThreadPool::global().parallelFor(
            B * M,
            [&](int64_t r0, int64_t r1) {
                std::vector<float> acc(static_cast<size_t>(N));
                for (int64_t r = r0; r < r1; ++r) {
                    const float* ar = af.data() + r * K;
                    const float* bm = bf.data() + (r / M) * K * N;
                    std::fill(acc.begin(), acc.end(), 0.0f);
                    for (int64_t k = 0; k < K; ++k) {
                        float av = ar[k];
                        const float* br = bm + k * N;
                        for (int64_t n = 0; n < N; ++n) acc[size_t(n)] += av * br[n];
                    }
                    for (int64_t n = 0; n < N; ++n) out[r * N + n] = detail::fromF32<Y>(acc[size_t(n)]);
                }
            },
            minRows);
    });
    return y;
}

}  // namespace llama::ml
