// Batched MatMul for attention (scores = q·kᵀ, output = probs·v): small matrices, many of them.
// Each output row is accumulated in F32 over k in i-k-j order (a row of b is contiguous, so the
// inner loop vectorises, widening b's BF16 values in registers) and rounded once to the result
// dtype, like PyTorch's bf16 bmm. Nothing is copied: at long context b is the whole key or
// value cache of a layer, and widening it to F32 first cost more than the products (measured).
// The pool splits the batch × rows of the output.
#include <algorithm>
#include <bit>
#include <vector>

#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"

namespace llama::ml {

namespace {

// acc[j] += av * b[j] for j < n (the compiler vectorises both forms).
inline void addScaledRow(float av, const float* b, float* acc, int64_t n) {
    for (int64_t j = 0; j < n; ++j) acc[j] += av * b[j];
}
inline void addScaledRow(float av, const BFloat16* b, float* acc, int64_t n) {
    const auto* bits = reinterpret_cast<const uint16_t*>(b);
    for (int64_t j = 0; j < n; ++j) acc[j] += av * std::bit_cast<float>(uint32_t(bits[j]) << 16);
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

    Tensor y = Tensor::uninitialized(outShape, a.dtype());
    detail::visitFloat(a.dtype(), [&](auto aTag) {
        using A = decltype(aTag);  // a's and the result's dtype
        detail::visitFloat(b.dtype(), [&](auto bTag) {
            using B_ = decltype(bTag);
            const A* ap = a.data<A>();
            const B_* bp = b.data<B_>();
            A* out = y.mutableData<A>();
            int64_t minRows = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, K * N));
            ThreadPool::global().parallelFor(
                B * M,
                [&](int64_t r0, int64_t r1) {
                    std::vector<float> acc(static_cast<size_t>(N));
                    for (int64_t r = r0; r < r1; ++r) {
                        const A* ar = ap + r * K;
                        const B_* bm = bp + (r / M) * K * N;
                        std::fill(acc.begin(), acc.end(), 0.0f);
                        for (int64_t k = 0; k < K; ++k) addScaledRow(detail::toF32(ar[k]), bm + k * N, acc.data(), N);
                        for (int64_t n = 0; n < N; ++n) out[r * N + n] = detail::fromF32<A>(acc[size_t(n)]);
                    }
                },
                minRows);
        });
    });
    return y;
}

}  // namespace llama::ml
