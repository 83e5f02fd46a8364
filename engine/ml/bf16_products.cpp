#include "ml/bf16_products.h"

#include <algorithm>

#include "ml/op_profile.h"
#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"

namespace llama::ml {

namespace {

BF16Products* current = nullptr;  // the training loop's thread sets it; the pool's threads never read it

}  // namespace

BF16Products::BF16Products() : previous_(current) { current = this; }

BF16Products::~BF16Products() { current = previous_; }

BF16Products* BF16Products::active() { return current; }

const Tensor& BF16Products::rounded(const Tensor& weights) {
    Tensor& t = rounded_[weights.data<float>()];
    if (!t.hasData()) t = ToBFloat16(weights);
    return t;
}

const Tensor& BF16Products::roundedTransposed(const Tensor& weights) {
    Tensor& t = transposed_[weights.data<float>()];
    if (!t.hasData()) t = TransposedBF16(weights);
    return t;
}

Tensor TransposedBF16(const Tensor& a) {
    const OpScope profile(OpKind::ToBFloat16);
    detail::requireDType("TransposedBF16", a, DType::F32, "a");
    if (a.rank() != 2) detail::fail("TransposedBF16", "a " + a.shapeStr() + " must be a matrix");
    const Tensor ac = Contiguous(a);
    const int64_t rows = a.dim(0), cols = a.dim(1);
    Tensor y = Tensor::uninitialized({cols, rows}, DType::BF16);
    const float* src = ac.data<float>();
    BFloat16* dst = y.mutableData<BFloat16>();
    // 32 x 32 blocks: a block's source rows and destination rows each stay in L1.
    constexpr int64_t kBlock = 32;
    const int64_t colBlocks = (cols + kBlock - 1) / kBlock;
    ThreadPool::global().parallelFor(colBlocks, [&](int64_t b0, int64_t b1) {
        for (int64_t c0 = b0 * kBlock; c0 < std::min(cols, b1 * kBlock); c0 += kBlock)
            for (int64_t r0 = 0; r0 < rows; r0 += kBlock) {
                const int64_t c1 = std::min(cols, c0 + kBlock), r1 = std::min(rows, r0 + kBlock);
                for (int64_t c = c0; c < c1; ++c)
                    for (int64_t r = r0; r < r1; ++r) dst[c * rows + r] = BFloat16(src[r * cols + c]);
            }
    }, std::max<int64_t>(1, detail::kElementsPerTask / std::max<int64_t>(1, rows * kBlock)));
    return y;
}

}  // namespace llama::ml
