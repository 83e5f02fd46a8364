// Batched MatMul for attention (scores = q·kᵀ, output = probs·v): small matrices, many of them.
// Each output is accumulated in F32 over k in increasing k (row_products.h: a row of b is
// contiguous, so the lanes run across columns, widening b's BF16 values in registers) and rounded
// once to the result dtype, like PyTorch's bf16 bmm. Nothing is widened ahead: at long context b
// is the whole key or value cache of a layer, and widening it to F32 first cost more than the
// products (measured). The pool splits the batch × tiles of rows of the output. A tile's sums
// leave out the columns where its rows of a are all zero (row_products.h: nonzeroColumns).
#include <algorithm>
#include <vector>

#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/row_products.h"
#include "ml/thread_pool.h"

namespace llama::ml {

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

    // Views are read where they lie, repeated batches of b (the KV heads behind each query head)
    // included; other repeats are rare enough to copy.
    const Strides ra = a.repeats(), rb = b.repeats();
    if (std::any_of(ra.begin(), ra.end(), [](int64_t r) { return r != 1; }) || rb[1] != 1 || rb[2] != 1)
        return MatMul(Contiguous(a), Contiguous(b));
    // The column tiles read rows of b. A b whose rows are not contiguous (the transposed keys,
    // [HeadDim, positions]: one position's values sit together) is copied into row-major order
    // first, each distinct batch once (the N_Rep query heads of a KV head share one copy).
    const Tensor packedB = b.strides()[2] == 1 ? b : Contiguous(Tensor::strided({B / rb[0], K, N}, b.strides(), b));
    Tensor y = Tensor::uninitialized(outShape, a.dtype());
    const Strides as = a.strides(), bs = packedB.strides();
    detail::visitFloat(a.dtype(), [&](auto aTag) {
        using A = decltype(aTag);  // a's and the result's dtype
        detail::visitFloat(b.dtype(), [&](auto bTag) {
            using B_ = decltype(bTag);
            const A* ap = a.viewData<A>();
            const B_* bp = packedB.viewData<B_>();
            A* out = y.mutableData<A>();
            const int64_t tilesPerBatch = (M + detail::kTileRows - 1) / detail::kTileRows;
            // A chunk's multiply-adds: a decode step's scores of a small model (8 heads of 8 values, 100
            // positions: 6,400) cost less on one core than handed to another (docs/speed.md).
            const int64_t minTiles = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, K * N * detail::kTileRows));
            ThreadPool::global().parallelFor(
                B * tilesPerBatch,
                [&](int64_t t0, int64_t t1) {
                    std::vector<float> panel, ytile(size_t(detail::kTileRows * N));
                    for (int64_t t = t0; t < t1; ++t) {
                        const int64_t batch = t / tilesPerBatch, m0 = t % tilesPerBatch * detail::kTileRows;
                        const int rows = int(std::min<int64_t>(detail::kTileRows, M - m0));
                        // Only the columns of the tile's rows of a that are not all zero (a
                        // causal mask's probabilities and their gradients: half the products).
                        const A* at = ap + batch * as[0] + m0 * as[1];
                        const auto [k0, k1] = detail::nonzeroColumns(at, as[1], as[2], rows, K);
                        detail::rowsTimesColumns(at + k0 * as[2], as[1], as[2], rows, bp + batch / rb[0] * bs[0] + k0 * bs[1], bs[1], k1 - k0, N,
                                                 ytile.data(), N, panel);
                        A* o = out + (batch * M + m0) * N;
                        for (int64_t i = 0; i < rows * N; ++i) o[i] = detail::fromF32<A>(ytile[size_t(i)]);
                    }
                },
                minTiles);
        });
    });
    return y;
}

}  // namespace llama::ml
