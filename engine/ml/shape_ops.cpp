// Ops that move or reinterpret bytes without arithmetic: Transpose and RepeatInterleave (strided
// views), Contiguous, Reshape, Slice (a view of rows), SetSlice, and the complex/real views used
// by the rotary embedding.
#include <algorithm>
#include <cstring>
#include <memory>

#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"

#ifdef __SSE2__
#include <immintrin.h>
#endif

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

// A tensor over a's bytes (from `data` on) with another shape and dtype. The aliasing
// shared_ptr keeps a copy of `a` (and so its owner) alive for as long as the view exists.
Tensor viewOf(const Tensor& a, Shape shape, DType dtype, const void* data) {
    std::shared_ptr<const void> keep(std::make_shared<Tensor>(a), data);
    return Tensor::view(std::move(shape), dtype, std::move(keep), data);
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
    Shape outShape = a.shape();
    std::swap(outShape[lo], outShape[hi]);
    if (!a.hasData()) return Tensor::shapeOnly(outShape, a.dtype());
    if (isQuantized(a.dtype())) fail(op, std::string("cannot transpose blocks of ") + dtypeName(a.dtype()));
    // No bytes move: the view reads a's elements with the two strides swapped.
    Strides strides = a.strides(), repeats = a.repeats();
    std::swap(strides[lo], strides[hi]);
    std::swap(repeats[lo], repeats[hi]);
    return Tensor::strided(std::move(outShape), std::move(strides), a, std::move(repeats));
}

Tensor RepeatInterleave(const Tensor& a, int dim, int64_t repeats) {
    const OpScope profile(OpKind::RepeatInterleave);
    constexpr const char* op = "RepeatInterleave";
    const int d = normaliseDim(op, a, dim);
    if (repeats < 1) fail(op, "repeats must be at least 1, got " + std::to_string(repeats));
    Shape outShape = a.shape();
    outShape[size_t(d)] *= repeats;
    if (!a.hasData()) return Tensor::shapeOnly(outShape, a.dtype());
    if (isQuantized(a.dtype())) fail(op, std::string("cannot repeat blocks of ") + dtypeName(a.dtype()));
    // Index i of the new dimension reads index i / repeats of a's: the same stride, read repeatedly.
    Strides rep = a.repeats();
    rep[size_t(d)] *= repeats;
    return Tensor::strided(std::move(outShape), a.strides(), a, std::move(rep));
}

Tensor Contiguous(const Tensor& a) {
    const OpScope profile(OpKind::Contiguous);
    if (a.isContiguous()) return a;
    Tensor y = Tensor::uninitialized(a.shape(), a.dtype());
    // Neighbouring dimensions that walk memory as one (the outer stride is the inner size times
    // the inner stride, nothing repeated) are copied as one. The row-major result is the same
    // bytes, and the keys' [KV heads, HeadDim, positions] becomes one transpose of
    // [KV heads x HeadDim, positions] that reads each position's keys whole, in memory order.
    Shape shape{a.dim(0)};
    Strides strides{a.strides()[0]}, repeats{a.repeats()[0]};
    for (size_t d = 1; d < a.rank(); ++d) {
        const int64_t size = a.dim(int(d)), stride = a.strides()[d], repeat = a.repeats()[d];
        if (repeats.back() == 1 && repeat == 1 && strides.back() == size * stride) {
            shape.back() *= size;
            strides.back() = stride;
        } else {
            shape.push_back(size);
            strides.push_back(stride);
            repeats.push_back(repeat);
        }
    }
    const int64_t cols = shape.back(), rows = cols ? a.numel() / cols : 0;
    // Whole groups of eight rows per task keep the 8 x 8 transposed blocks.
    ThreadPool::global().parallelFor(
        rows,
        [&](int64_t r0, int64_t r1) {
            copyStridedRows(shape, strides, repeats, dtypeSize(a.dtype()), a.viewData<char>(), y.mutableData<char>(), r0, r1);
        },
        std::max<int64_t>(8, (1 << 16) / std::max<int64_t>(1, cols) / 8 * 8));
    return y;
}

Tensor Reshape(const Tensor& a, const Shape& shape) {
    const OpScope profile(OpKind::Reshape);
    if (shapeNumel(shape) != a.numel())
        fail("Reshape", "cannot reshape " + a.shapeStr() + " to " + shapeStr(shape));
    if (!a.hasData()) return Tensor::shapeOnly(shape, a.dtype());
    // A strided view is copied into row-major order first, as torch.reshape does.
    return Contiguous(a).reshaped(shape);
}

Tensor Slice(const Tensor& a, int64_t start, int64_t end) {
    const OpScope profile(OpKind::Slice);
    constexpr const char* op = "Slice";
    if (a.rank() < 1 || start < 0 || start > end || end > a.dim(0))
        fail(op, "rows [" + std::to_string(start) + ", " + std::to_string(end) + ") out of range for " + a.shapeStr());
    Shape outShape = a.shape();
    outShape[0] = end - start;
    if (!a.hasData()) return Tensor::shapeOnly(outShape, a.dtype());
    // Rows along the first dimension of a row-major tensor are contiguous already: a read-only
    // view of them, as PyTorch's cache_k[:, :end] is (the whole KV cache, every layer and step).
    const size_t rowBytes = a.dim(0) ? a.byteSize() / size_t(a.dim(0)) : 0;
    return viewOf(a, std::move(outShape), a.dtype(), static_cast<const char*>(a.rawData()) + size_t(start) * rowBytes);
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
    return viewOf(a, shape, DType::Complex64, a.rawData());
}

Tensor ViewAsFloat32WithReshape(const Tensor& a, const Shape& shape) {
    const OpScope profile(OpKind::ViewAsFloat32WithReshape);
    constexpr const char* op = "ViewAsFloat32WithReshape";
    detail::requireDType(op, a, DType::Complex64, "a");
    if (shapeNumel(shape) != 2 * a.numel())
        fail(op, "cannot view " + a.shapeStr() + " as real " + shapeStr(shape) + " (needs twice as many elements)");
    if (!a.hasData()) return Tensor::shapeOnly(shape, DType::F32);
    return viewOf(a, shape, DType::F32, a.rawData());
}

}  // namespace llama::ml
