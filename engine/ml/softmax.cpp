// Softmax along one dimension of an F32 tensor, the way PyTorch's CPU kernel does it:
// subtract the row maximum, exponentiate (a vectorised exp, as PyTorch's), multiply by the
// reciprocal of the sum (taken in vector lanes, as PyTorch's is).
// exp(-inf - max) is exactly 0, so masked positions get probability 0.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ml/exp_approx.h"
#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"

namespace llama::ml {

namespace {

constexpr int kLanes = 16;

// Softmax of one contiguous row. The maximum and the sum are taken in kLanes interleaved
// partials (element i goes to partial i % kLanes, the tail too), then the partials are added in
// a fixed tree. The compiler vectorises all four loops (an in-order sum was a chain of dependent
// adds: 80% of Softmax at 1,024 tokens), and a row with masked positions appended (exp gives
// exactly 0) sums to the same value bit for bit, so a prefill row and the same row in decode agree.
void softmaxRow(const float* x, float* y, int64_t len) {
    float mx[kLanes], sum[kLanes];
    std::fill_n(mx, kLanes, -std::numeric_limits<float>::infinity());
    std::fill_n(sum, kLanes, 0.0f);
    const int64_t whole = len / kLanes * kLanes;
    for (int64_t i = 0; i < whole; i += kLanes)
        for (int j = 0; j < kLanes; ++j) mx[j] = std::max(mx[j], x[i + j]);
    for (int64_t i = whole; i < len; ++i) mx[i - whole] = std::max(mx[i - whole], x[i]);
    for (int w = kLanes / 2; w >= 1; w /= 2)
        for (int j = 0; j < w; ++j) mx[j] = std::max(mx[j], mx[j + w]);
    for (int64_t i = 0; i < len; ++i) y[i] = detail::expApprox(x[i] - mx[0]);
    for (int64_t i = 0; i < whole; i += kLanes)
        for (int j = 0; j < kLanes; ++j) sum[j] += y[i + j];
    for (int64_t i = whole; i < len; ++i) sum[i - whole] += y[i];
    for (int w = kLanes / 2; w >= 1; w /= 2)
        for (int j = 0; j < w; ++j) sum[j] += sum[j + w];
    const float scale = 1.0f / sum[0];
    for (int64_t i = 0; i < len; ++i) y[i] *= scale;
}

}  // namespace

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
            std::vector<float> row(inner == 1 ? 0 : size_t(2 * len));  // a row `inner` apart, gathered
            for (int64_t r = r0; r < r1; ++r) {
                const int64_t o = r / inner, in = r % inner;
                const float* xr = x + o * len * inner + in;
                float* yr = out + o * len * inner + in;
                if (inner == 1) {
                    softmaxRow(xr, yr, len);
                    continue;
                }
                for (int64_t i = 0; i < len; ++i) row[size_t(i)] = xr[i * inner];
                softmaxRow(row.data(), row.data() + len, len);
                for (int64_t i = 0; i < len; ++i) yr[i * inner] = row[size_t(len + i)];
            }
        },
        std::max<int64_t>(1, 8192 / std::max<int64_t>(1, len)));
    return y;
}

}  // namespace llama::ml
