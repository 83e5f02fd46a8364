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

// The sum of y[0..len) in kLanes interleaved partials (element i to partial i % kLanes, the tail
// too), then the partials added in a fixed tree: the canonical order of every path (docs/speed.md).
// The compiler vectorises it (an in-order sum was a chain of dependent adds: 80% of Softmax at
// 1,024 tokens).
float partialSum(const float* y, int64_t len) {
    float sum[kLanes];
    std::fill_n(sum, kLanes, 0.0f);
    const int64_t whole = len / kLanes * kLanes;
    for (int64_t i = 0; i < whole; i += kLanes)
        for (int j = 0; j < kLanes; ++j) sum[j] += y[i + j];
    for (int64_t i = whole; i < len; ++i) sum[i - whole] += y[i];
    for (int w = kLanes / 2; w >= 1; w /= 2)
        for (int j = 0; j < w; ++j) sum[j] += sum[j + w];
    return sum[0];
}

// Softmax of one contiguous row. The maximum is taken in kLanes partials too (any order gives the
// same maximum). The sum runs over the row's unmasked entries in order: exp gives exactly 0 for
// masked ones, which add nothing where they follow the last unmasked entry (a prefill row and the
// same row in decode agree), but inside the row (a batch's mask hides other sequences' cells)
// they would move the entries after them to other partials: there the unmasked exps are
// gathered first, so a sequence's row sums to the same bits in a batch as alone.
// The masked entries after the last unmasked one (half of a causal prefill's) are not
// exponentiated: expApprox(-inf - max) is +0 for any max above -inf, so they are set to +0, and
// the sum stops before them (+0 leaves a partial as it was).
void softmaxRow(const float* x, float* y, int64_t len, std::vector<float>& kept) {
    constexpr float kMasked = -std::numeric_limits<float>::infinity();
    int64_t end = len;
    while (end > 0 && x[end - 1] == kMasked) --end;
    float mx[kLanes];
    std::fill_n(mx, kLanes, kMasked);
    const int64_t whole = end / kLanes * kLanes;
    for (int64_t i = 0; i < whole; i += kLanes)
        for (int j = 0; j < kLanes; ++j) mx[j] = std::max(mx[j], x[i + j]);
    for (int64_t i = whole; i < end; ++i) mx[i - whole] = std::max(mx[i - whole], x[i]);
    for (int w = kLanes / 2; w >= 1; w /= 2)
        for (int j = 0; j < w; ++j) mx[j] = std::max(mx[j], mx[j + w]);
    const bool allMasked = mx[0] == kMasked;  // then exp(-inf - -inf) is NaN everywhere, as it was
    if (allMasked) end = len;
    for (int64_t i = 0; i < end; ++i) y[i] = detail::expApprox(x[i] - mx[0]);
    std::fill(y + end, y + len, 0.0f);
    // A masked entry before `end`, where an unmasked one follows it (counted: the loop vectorises).
    int64_t maskedBefore = 0;
    for (int64_t i = 0; i < end && !allMasked; ++i) maskedBefore += x[i] == kMasked;
    float sum;
    if (maskedBefore > 0) {
        kept.clear();
        for (int64_t i = 0; i < end; ++i)
            if (x[i] != kMasked) kept.push_back(y[i]);
        sum = partialSum(kept.data(), int64_t(kept.size()));
    } else {
        sum = partialSum(y, end);
    }
    const float scale = 1.0f / sum;
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
            std::vector<float> kept;
            for (int64_t r = r0; r < r1; ++r) {
                const int64_t o = r / inner, in = r % inner;
                const float* xr = x + o * len * inner + in;
                float* yr = out + o * len * inner + in;
                if (inner == 1) {
                    softmaxRow(xr, yr, len, kept);
                    continue;
                }
                for (int64_t i = 0; i < len; ++i) row[size_t(i)] = xr[i * inner];
                softmaxRow(row.data(), row.data() + len, len, kept);
                for (int64_t i = 0; i < len; ++i) yr[i * inner] = row[size_t(len + i)];
            }
        },
        std::max<int64_t>(1, 8192 / std::max<int64_t>(1, len)));
    return y;
}

}  // namespace llama::ml
