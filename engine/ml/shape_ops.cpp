// Ops that move or reinterpret bytes without arithmetic: Transpose, Reshape, Slice, SetSlice,
// and the complex/real views used by the rotary embedding.
#include <algorithm>
#include <cstring>
#include <memory>

#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"

namespace llama::ml {

namespace {

using detail::fail;
using detail::shapeStr;

int normaliseDim(const char* op, const Tensor& a, int d) {
    int rank = int(a.rank());
    int n = d < 0 ? d + rank : d;
    if (n < 0 || n >= rank) fail(op, "dim " + std::to_string(d) + " out of range for " + a.shapeStr());
    return n;
}

// A tensor over a's bytes with another shape and dtype. The aliasing shared_ptr keeps a copy
// of `a` (and so its owner) alive for as long as the view exists.
Tensor viewOf(const Tensor& a, Shape shape, DType dtype) {
    std::shared_ptr<const void> keep(std::make_shared<Tensor>(a), a.rawData());
    return Tensor::view(std::move(shape), dtype, std::move(keep), a.rawData());
}

// Slice/SetSlice rows must keep every dimension but the first.
void requireSameRows(const char* op, const Tensor& a, const Tensor& b) {
    if (a.rank() != b.rank() || a.rank() < 1 || !std::equal(a.shape().begin() + 1, a.shape().end(), b.shape().begin() + 1))
        fail(op, "rows of " + b.shapeStr() + " do not match rows of " + a.shapeStr());
}

}  // namespace

Tensor Transpose(const Tensor& a, int d0, int d1) {
    const OpScope profile(OpKind::Transpose);
    constexpr const char* op = "Transpose";
    int lo = normaliseDim(op, a, d0), hi = normaliseDim(op, a, d1);
    if (lo > hi) std::swap(lo, hi);
    Shape outShape = a.shape();
    std::swap(outShape[lo], outShape[hi]);
    if (!a.hasData()) return Tensor::shapeOnly(outShape, a.dtype());

    // As [outer, A, mid, B, inner] -> [outer, B, mid, A, inner]: `inner` elements stay contiguous.
    auto prod = [&](int from, int to) {
        int64_t p = 1;
        for (int i = from; i < to; ++i) p *= a.dim(i);
        return p;
    };
    int64_t outer = prod(0, lo), A = a.dim(lo), mid = prod(lo + 1, hi), B = a.dim(hi), inner = prod(hi + 1, int(a.rank()));
    Tensor y(outShape, a.dtype());
    const size_t block = size_t(inner) * dtypeSize(a.dtype());
    const char* src = static_cast<const char*>(a.rawData());
    char* dst = y.mutableData<char>();
    // Attention transposes keys [heads, positions, headDim] -> [heads, headDim, positions]:
    // single 2-byte elements, millions of them at long context, so those are copied as
    // typed values in square tiles (both sides' cache lines reused) rather than by memcpy.
    auto copyTiles = [&]<class E>(E, int64_t o, int64_t m) {
        const E* s = reinterpret_cast<const E*>(src);
        E* d = reinterpret_cast<E*>(dst);
        constexpr int64_t kTile = 32;
        for (int64_t i0 = 0; i0 < A; i0 += kTile)
            for (int64_t b0 = 0; b0 < B; b0 += kTile)
                for (int64_t i = i0; i < std::min(A, i0 + kTile); ++i)
                    for (int64_t b = b0; b < std::min(B, b0 + kTile); ++b)
                        d[((o * B + b) * mid + m) * A + i] = s[((o * A + i) * mid + m) * B + b];
    };
    auto copyBlocks = [&](int64_t o, int64_t m) {
        switch (block) {
            case 2: return copyTiles(uint16_t{}, o, m);
            case 4: return copyTiles(uint32_t{}, o, m);
            case 8: return copyTiles(uint64_t{}, o, m);
        }
        for (int64_t b = 0; b < B; ++b)
            for (int64_t i = 0; i < A; ++i) {
                int64_t from = (((o * A + i) * mid + m) * B + b);
                int64_t to = (((o * B + b) * mid + m) * A + i);
                std::memcpy(dst + to * block, src + from * block, block);
            }
    };
    ThreadPool::global().parallelFor(
        outer * mid,
        [&](int64_t r0, int64_t r1) {
            for (int64_t r = r0; r < r1; ++r) copyBlocks(r / mid, r % mid);
        },
        std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(1, A * B * inner)));
    return y;
}

Tensor Reshape(const Tensor& a, const Shape& shape) {
    const OpScope profile(OpKind::Reshape);
    if (shapeNumel(shape) != a.numel())
        fail("Reshape", "cannot reshape " + a.shapeStr() + " to " + shapeStr(shape));
    if (!a.hasData()) return Tensor::shapeOnly(shape, a.dtype());
    return a.reshaped(shape);
}

Tensor Slice(const Tensor& a, int64_t start, int64_t end) {
    const OpScope profile(OpKind::Slice);
    constexpr const char* op = "Slice";
    if (a.rank() < 1 || start < 0 || start > end || end > a.dim(0))
        fail(op, "rows [" + std::to_string(start) + ", " + std::to_string(end) + ") out of range for " + a.shapeStr());
    Shape outShape = a.shape();
    outShape[0] = end - start;
    if (!a.hasData()) return Tensor::shapeOnly(outShape, a.dtype());
    Tensor y(outShape, a.dtype());
    size_t rowBytes = a.dim(0) ? a.byteSize() / size_t(a.dim(0)) : 0;
    std::memcpy(y.mutableData<char>(), static_cast<const char*>(a.rawData()) + size_t(start) * rowBytes, y.byteSize());
    return y;
}

void SetSlice(Tensor& dst, int64_t start, const Tensor& src) {
    const OpScope profile(OpKind::SetSlice);
    constexpr const char* op = "SetSlice";
    requireSameRows(op, dst, src);
    if (src.dtype() != dst.dtype())
        fail(op, std::string("src ") + src.shapeStr() + " is " + dtypeName(src.dtype()) + " but dst " + dst.shapeStr() +
                     " is " + dtypeName(dst.dtype()));
    if (start < 0 || start + src.dim(0) > dst.dim(0))
        fail(op, "rows [" + std::to_string(start) + ", " + std::to_string(start + src.dim(0)) + ") out of range for dst " +
                     dst.shapeStr());
    if (!dst.hasData() || !src.hasData()) return;
    size_t rowBytes = dst.dim(0) ? dst.byteSize() / size_t(dst.dim(0)) : 0;
    std::memcpy(dst.mutableData<char>() + size_t(start) * rowBytes, src.rawData(), src.byteSize());
}

Tensor ViewAsComplex64WithReshape(const Tensor& a, const Shape& shape) {
    const OpScope profile(OpKind::ViewAsComplex64WithReshape);
    constexpr const char* op = "ViewAsComplex64WithReshape";
    detail::requireDType(op, a, DType::F32, "a");
    if (a.rank() < 1 || a.dim(-1) % 2 != 0 || a.numel() != 2 * shapeNumel(shape))
        fail(op, "cannot view " + a.shapeStr() + " as complex " + shapeStr(shape) +
                     " (needs an even last dimension and half as many elements)");
    if (!a.hasData()) return Tensor::shapeOnly(shape, DType::Complex64);
    return viewOf(a, shape, DType::Complex64);
}

Tensor ViewAsFloat32WithReshape(const Tensor& a, const Shape& shape) {
    const OpScope profile(OpKind::ViewAsFloat32WithReshape);
    constexpr const char* op = "ViewAsFloat32WithReshape";
    detail::requireDType(op, a, DType::Complex64, "a");
    if (shapeNumel(shape) != 2 * a.numel())
        fail(op, "cannot view " + a.shapeStr() + " as real " + shapeStr(shape) + " (needs twice as many elements)");
    if (!a.hasData()) return Tensor::shapeOnly(shape, DType::F32);
    return viewOf(a, shape, DType::F32);
}

}  // namespace llama::ml
