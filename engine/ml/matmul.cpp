// Batched MatMul for attention (scores = q·kᵀ, output = probs·v): small matrices, many of them.
// Each output row is accumulated in F32 over k in i-k-j order (a row of b is contiguous, so the
// inner loop vectorises, widening b's BF16 values in registers) and rounded once to the result
// dtype, like PyTorch's bf16 bmm. Nothing is widened ahead: at long context b is the whole key
// or value cache of a layer, and widening it to F32 first cost more than the products (measured).
// The columns are taken kCols at a time with their sums in registers for the whole k loop
// (summing into a row in memory loaded and stored every sum once per k: 5.6% of BF16 prefill
// at 128 tokens, for 1% of its multiply-adds). The pool splits the batch × rows of the output.
#include <algorithm>
#include <type_traits>
#include <vector>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"

namespace llama::ml {

namespace {

// GCC/Clang vector extension, one register of the target's widest float vectors (wider ones
// are split into several, and GCC 12 then kept them on the stack).
#if defined(__AVX512F__)
constexpr int kColsWidth = 16;
#elif defined(__AVX__)
constexpr int kColsWidth = 8;
#else
constexpr int kColsWidth = 4;
#endif
typedef float Cols __attribute__((vector_size(kColsWidth * sizeof(float))));
constexpr int64_t kCols = 4 * kColsWidth;

template <class B_>
inline Cols loadCols(const B_* b) {
#ifdef __wasm_simd128__
    // clang 14 builds the generic loop below as four scalar loads and lane inserts (the attention
    // products were a fifth of the browser build's decode): four bf16 widened in one load, then
    // shifted into the top halves of f32 lanes.
    if constexpr (std::is_same_v<B_, BFloat16>) return Cols(wasm_i32x4_shl(wasm_u32x4_load16x4(b), 16));
#endif
    Cols v;
    for (int j = 0; j < kColsWidth; ++j) v[j] = detail::toF32(b[j]);
    return v;
}

// y[j] = sum_k a[k] * b[k * ldb + j] for j < kCols: four named sums (an array of them was kept
// in memory, a store and a reload per multiply-add).
template <class B_>
void columnTile(const float* a, const B_* b, int64_t K, int64_t ldb, float* y) {
    Cols s0 = {}, s1 = {}, s2 = {}, s3 = {};
    for (int64_t k = 0; k < K; ++k) {
        const B_* bk = b + k * ldb;
        s0 += a[k] * loadCols(bk);
        s1 += a[k] * loadCols(bk + kColsWidth);
        s2 += a[k] * loadCols(bk + 2 * kColsWidth);
        s3 += a[k] * loadCols(bk + 3 * kColsWidth);
    }
    for (int j = 0; j < kColsWidth; ++j) {
        y[j] = s0[j];
        y[kColsWidth + j] = s1[j];
        y[2 * kColsWidth + j] = s2[j];
        y[3 * kColsWidth + j] = s3[j];
    }
}

// The same for the last n < kCols columns: a vector of them at a time, then one at a time.
template <class B_>
void columnTail(const float* a, const B_* b, int64_t K, int64_t ldb, int64_t n, float* y) {
    int64_t j = 0;
    for (; j + kColsWidth <= n; j += kColsWidth) {
        Cols s = {};
        for (int64_t k = 0; k < K; ++k) s += a[k] * loadCols(b + k * ldb + j);
        for (int c = 0; c < kColsWidth; ++c) y[j + c] = s[c];
    }
    std::fill(y + j, y + n, 0.0f);
    for (int64_t k = 0; k < K; ++k)
        for (int64_t c = j; c < n; ++c) y[c] += a[k] * detail::toF32(b[k * ldb + c]);
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
            int64_t minRows = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, K * N));
            ThreadPool::global().parallelFor(
                B * M,
                [&](int64_t r0, int64_t r1) {
                    std::vector<float> arow(static_cast<size_t>(K)), yrow(static_cast<size_t>(N));
                    for (int64_t r = r0; r < r1; ++r) {
                        const int64_t batch = r / M;
                        const A* ar = ap + batch * as[0] + r % M * as[1];
                        for (int64_t k = 0; k < K; ++k) arow[size_t(k)] = detail::toF32(ar[k * as[2]]);
                        const B_* bm = bp + batch / rb[0] * bs[0];
                        int64_t j = 0;
                        for (; j + kCols <= N; j += kCols) columnTile(arow.data(), bm + j, K, bs[1], yrow.data() + j);
                        if (j < N) columnTail(arow.data(), bm + j, K, bs[1], N - j, yrow.data() + j);
                        for (int64_t n = 0; n < N; ++n) out[r * N + n] = detail::fromF32<A>(yrow[size_t(n)]);
                    }
                },
                minRows);
        });
    });
    return y;
}

}  // namespace llama::ml
