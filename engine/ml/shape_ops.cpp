// Ops that move or reinterpret bytes without arithmetic: Transpose, Reshape, Slice, SetSlice,
// and the complex/real views used by the rotary embedding.
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

// A tensor over a's bytes with another shape and dtype. The aliasing shared_ptr keeps a copy
// of `a` (and so its owner) alive for as long as the view exists.
Tensor viewOf(const Tensor& a, Shape shape, DType dtype) {
    std::shared_ptr<const void> keep(std::make_shared<Tensor>(a), a.rawData());
    return Tensor::view(std::move(shape), dtype, std::move(keep), a.rawData());
}

// dst[c * dstStride + r] = src[r * srcStride + c] for an 8 x 8 block of 2-byte elements: eight
// rows in registers, three rounds of interleaving (the keys' transpose at long context moves
// millions of bf16 values per layer; one at a time that took ~1 ns each).
inline void transpose8x8(const uint16_t* src, int64_t srcStride, uint16_t* dst, int64_t dstStride) {
#ifdef __SSE2__
    __m128i r[8], t[8];
    for (int i = 0; i < 8; ++i) r[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i * srcStride));
    for (int i = 0; i < 4; ++i) {
        t[2 * i] = _mm_unpacklo_epi16(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm_unpackhi_epi16(r[2 * i], r[2 * i + 1]);
    }
    // t[0] = a0 b0 a1 b1 a2 b2 a3 b3, t[1] = a4 b4 .. a7 b7, t[2] = c0 d0 .., t[3] = c4 d4 .., ...
    for (int h = 0; h < 2; ++h) {
        __m128i ab_cd_lo = _mm_unpacklo_epi32(t[h], t[2 + h]), ab_cd_hi = _mm_unpackhi_epi32(t[h], t[2 + h]);
        __m128i ef_gh_lo = _mm_unpacklo_epi32(t[4 + h], t[6 + h]), ef_gh_hi = _mm_unpackhi_epi32(t[4 + h], t[6 + h]);
        // Column 4h + j of the block is row 4h + j of dst.
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (4 * h + 0) * dstStride), _mm_unpacklo_epi64(ab_cd_lo, ef_gh_lo));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (4 * h + 1) * dstStride), _mm_unpackhi_epi64(ab_cd_lo, ef_gh_lo));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (4 * h + 2) * dstStride), _mm_unpacklo_epi64(ab_cd_hi, ef_gh_hi));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (4 * h + 3) * dstStride), _mm_unpackhi_epi64(ab_cd_hi, ef_gh_hi));
    }
#else
    for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 8; ++c) dst[c * dstStride + r] = src[r * srcStride + c];
#endif
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
    Tensor y = Tensor::uninitialized(outShape, a.dtype());
    const size_t block = size_t(inner) * dtypeSize(a.dtype());
    const char* src = static_cast<const char*>(a.rawData());
    char* dst = y.mutableData<char>();
    // Attention transposes keys [heads, positions, headDim] -> [heads, headDim, positions]:
    // single 2-byte elements, millions of them at long context, so those are copied as
    // typed values in square tiles (both sides' cache lines reused) rather than by memcpy.
    auto copyTiles = [&]<class E>(E, int64_t o, int64_t m) {
        // For this (o, m), element (i, b) sits at from[i * fromStride + b] and goes to
        // to[b * toStride + i]; tiles keep both sides' cache lines in L1 while they are used.
        const E* from = reinterpret_cast<const E*>(src) + (o * A * mid + m) * B;
        E* to = reinterpret_cast<E*>(dst) + (o * B * mid + m) * A;
        const int64_t fromStride = mid * B, toStride = mid * A;
        constexpr int64_t kTile = 64;
        for (int64_t i0 = 0; i0 < A; i0 += kTile) {
            const int64_t i1 = std::min(A, i0 + kTile);
            for (int64_t b0 = 0; b0 < B; b0 += kTile) {
                const int64_t b1 = std::min(B, b0 + kTile);
                int64_t i = i0;
                if constexpr (sizeof(E) == 2)
                    for (; i + 8 <= i1; i += 8) {
                        int64_t b = b0;
                        for (; b + 8 <= b1; b += 8) transpose8x8(from + i * fromStride + b, fromStride, to + b * toStride + i, toStride);
                        for (; b < b1; ++b)
                            for (int64_t r = i; r < i + 8; ++r) to[b * toStride + r] = from[r * fromStride + b];
                    }
                for (; i < i1; ++i) {
                    const E* row = from + i * fromStride;
                    E* col = to + i;
                    for (int64_t b = b0; b < b1; ++b) col[b * toStride] = row[b];
                }
            }
        }
    };
    if (block == 2 || block == 4 || block == 8) {
        ThreadPool::global().parallelFor(
            outer * mid,
            [&](int64_t r0, int64_t r1) {
                for (int64_t r = r0; r < r1; ++r) {
                    if (block == 2) copyTiles(uint16_t{}, r / mid, r % mid);
                    if (block == 4) copyTiles(uint32_t{}, r / mid, r % mid);
                    if (block == 8) copyTiles(uint64_t{}, r / mid, r % mid);
                }
            },
            std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(1, A * B * inner)));
        return y;
    }
    // Runs of `inner` elements: one destination row (o, b, m) of A runs at a time.
    ThreadPool::global().parallelFor(
        outer * B * mid,
        [&](int64_t r0, int64_t r1) {
            for (int64_t r = r0; r < r1; ++r) {
                const int64_t o = r / (B * mid), b = r / mid % B, m = r % mid;
                for (int64_t i = 0; i < A; ++i)
                    std::memcpy(dst + (((o * B + b) * mid + m) * A + i) * block, src + (((o * A + i) * mid + m) * B + b) * block, block);
            }
        },
        std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(1, A * inner)));
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
    Tensor y = Tensor::uninitialized(outShape, a.dtype());
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
