#include "tensor/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#ifdef __SSE2__
#include <immintrin.h>
#endif

#include "tensor/quant_blocks.h"

namespace llama {

int64_t shapeNumel(const Shape& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

std::string shapeToString(const Shape& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ' ';
        s += std::to_string(shape[i]);
    }
    return s + "]";
}

Strides rowMajorStrides(const Shape& shape) {
    Strides strides(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
    return strides;
}


Tensor::Tensor(Shape shape, DType dtype) : Tensor(uninitialized(std::move(shape), dtype)) {
    std::memset(const_cast<void*>(data_), 0, byteSize());
}

Tensor Tensor::uninitialized(Shape shape, DType dtype) {
    Tensor t;
    t.shape_ = std::move(shape);
    t.dtype_ = dtype;
    for (int64_t d : t.shape_)
        if (d < 0) throw std::invalid_argument("negative dimension in shape " + shapeToString(t.shape_));
    size_t bytes = t.byteSize();
    // 64-byte alignment keeps SIMD loads on whole cache lines. Aligned by hand: glibc's aligned
    // allocation asks for more than the block it freed last time, so a tensor of the same size
    // never reused it (measured: the heap grew by 64 MiB per 64 MiB tensor).
    void* raw = std::malloc(bytes + 63);
    if (!raw) throw std::bad_alloc();
    void* p = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(raw) + 63) & ~uintptr_t(63));
    t.owner_ = std::shared_ptr<void>(p, [raw](void*) { std::free(raw); });
    t.data_ = p;
    t.writable_ = true;
    return t;
}

Tensor Tensor::view(Shape shape, DType dtype, std::shared_ptr<const void> owner, const void* data) {
    Tensor t;
    t.shape_ = std::move(shape);
    t.dtype_ = dtype;
    t.owner_ = std::move(owner);
    t.data_ = data;
    t.writable_ = false;
    return t;
}

Tensor Tensor::fromInt32(const std::vector<int32_t>& values) {
    Tensor t({int64_t(values.size())}, DType::I32);
    if (!values.empty()) std::memcpy(t.mutableData<int32_t>(), values.data(), values.size() * sizeof(int32_t));
    return t;
}

Tensor Tensor::shapeOnly(Shape shape, DType dtype) {
    Tensor t;
    t.shape_ = std::move(shape);
    t.dtype_ = dtype;
    return t;
}

Tensor Tensor::strided(Shape shape, Strides strides, const Tensor& base, Strides repeats) {
    if (repeats.empty()) repeats.assign(shape.size(), 1);
    if (strides.size() != shape.size() || repeats.size() != shape.size() || dtypeBlockSize(base.dtype_) != 1)
        throw std::invalid_argument("a strided view needs one stride and repeat per dimension and unblocked elements, not " +
                                    std::string(dtypeName(base.dtype_)));
    Tensor t = base.hasData() ? base : shapeOnly({}, base.dtype_);
    t.shape_ = std::move(shape);
    const bool rowMajor = strides == rowMajorStrides(t.shape_) && std::all_of(repeats.begin(), repeats.end(), [](int64_t r) { return r == 1; });
    t.strides_ = t.hasData() && !rowMajor ? std::move(strides) : Strides{};
    t.repeats_ = t.strides_.empty() ? Strides{} : std::move(repeats);
    return t;
}

Tensor Tensor::reshaped(Shape newShape) const {
    if (!isContiguous()) throw std::logic_error("cannot reshape the strided view " + shapeStr() + " in place");
    if (shapeNumel(newShape) != numel())
        throw std::invalid_argument("cannot reshape " + shapeStr() + " to shape(" + shapeToString(newShape) + ")");
    Tensor t = *this;
    t.shape_ = std::move(newShape);
    return t;
}

Tensor Tensor::clone() const {
    if (!hasData()) return shapeOnly(shape_, dtype_);
    Tensor t = uninitialized(shape_, dtype_);
    if (isContiguous())
        std::memcpy(const_cast<void*>(t.data_), data_, byteSize());
    else
        copyStridedRows(shape_, strides_, repeats_, dtypeSize(dtype_), data_, const_cast<void*>(t.data_), 0,
                        shape_.back() ? numel() / shape_.back() : 0);
    return t;
}

float Tensor::floatAt(int64_t i) const {
    if (!data_) checkedData();  // throws: a shape-only tensor has no values
    // Element i of a view sits where its strides and repeats say; of a row-major tensor, at i.
    int64_t e = i;
    if (!isContiguous()) {
        e = 0;
        for (size_t d = shape_.size(); d-- > 0;) {
            e += i % shape_[d] / repeats_[d] * strides_[d];
            i /= shape_[d];
        }
    }
    const void* base = data_;
    switch (dtype_) {
        case DType::F32: return static_cast<const float*>(base)[e];
        case DType::BF16: return static_cast<const BFloat16*>(base)[e].toFloat();
        case DType::Complex64: return static_cast<const Complex64*>(base)[e].real();
        case DType::I32: return float(static_cast<const int32_t*>(base)[e]);
        default: {
            // F16 and quantized weights (never views): decode the block that holds element e.
            const int64_t bs = dtypeBlockSize(dtype_);
            float block[256];
            dequantize(dtype_, static_cast<const char*>(base) + dtypeBytes(dtype_, e / bs * bs), block, bs);
            return block[e % bs];
        }
    }
}

const void* Tensor::rawData() const {
    if (!isContiguous())
        throw std::logic_error("tensor " + shapeStr() + " is a strided view (a transpose or repeated heads); ml::Contiguous gives its row-major copy");
    return data_;
}

const void* Tensor::checkedData() const {
    if (!data_) throw std::logic_error("tensor " + shapeStr() + " has no data (shape-only tensor)");
    return rawData();
}

namespace {

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

}  // namespace

void copyStridedRows(const Shape& shape, const Strides& strides, const Strides& repeats, size_t elementBytes, const void* src,
                     void* dst, int64_t row0, int64_t row1) {
    const auto* from = static_cast<const char*>(src);
    auto* to = static_cast<char*>(dst);
    const size_t rank = shape.size();
    if (rank == 0) {
        std::memcpy(to, from, elementBytes);
        return;
    }
    auto repeat = [&](size_t d) { return repeats.empty() ? int64_t(1) : repeats[d]; };
    const int64_t cols = shape[rank - 1], colStride = strides[rank - 1];
    // Rows run along the second-to-last dimension; a transposed pair has stride 1 there.
    const int64_t rowsPerMatrix = rank >= 2 ? shape[rank - 2] : 1;
    const bool rowsAdjacent = rank >= 2 && strides[rank - 2] == 1 && repeat(rank - 2) == 1;
    auto rowOffset = [&](int64_t row) {  // in elements, from the row's index in the leading dimensions
        int64_t offset = 0;
        for (size_t d = rank - 1; d-- > 0;) {
            offset += row % shape[d] / repeat(d) * strides[d];
            row /= shape[d];
        }
        return offset;
    };
    for (int64_t row = row0; row < row1;) {
        const char* in = from + rowOffset(row) * int64_t(elementBytes);
        char* out = to + row * cols * int64_t(elementBytes);
        if (colStride == 1 && repeat(rank - 1) == 1) {
            std::memcpy(out, in, size_t(cols) * elementBytes);
            ++row;
            continue;
        }
        // A transposed 2-byte pair (the attention keys): the rows of this matrix in the range,
        // eight at a time, in 8 x 8 register blocks. Each eight source rows (positions, a page
        // apart in the keys) are read whole before moving on; taking one group of output rows
        // across all columns at a time lost them to L1's 4K aliasing before their next use.
        const int64_t groups = (std::min(row1, row - row % rowsPerMatrix + rowsPerMatrix) - row) / 8;
        if (elementBytes == 2 && rowsAdjacent && repeat(rank - 1) == 1 && groups > 0) {
            const auto* in16 = reinterpret_cast<const uint16_t*>(in);
            auto* out16 = reinterpret_cast<uint16_t*>(out);
            int64_t c = 0;
            for (; c + 8 <= cols; c += 8)
                for (int64_t g = 0; g < groups; ++g) transpose8x8(in16 + c * colStride + g * 8, colStride, out16 + g * 8 * cols + c, cols);
            for (; c < cols; ++c)
                for (int64_t r = 0; r < groups * 8; ++r) out16[r * cols + c] = in16[c * colStride + r];
            row += groups * 8;
            continue;
        }
        // A transposed 4-byte pair (an F32 run's keys): eight rows at a time as well, each source
        // row's eight values read together. Copied as typed values, not by memcpy per element,
        // whose call cost more than the copy (half of an F32 model's decode at 900 positions).
        if (elementBytes == 4 && rowsAdjacent && repeat(rank - 1) == 1 && groups > 0) {
            const auto* in32 = reinterpret_cast<const uint32_t*>(in);
            auto* out32 = reinterpret_cast<uint32_t*>(out);
            for (int64_t g = 0; g < groups; ++g)
                for (int64_t c = 0; c < cols; ++c)
                    for (int64_t i = 0; i < 8; ++i) out32[(g * 8 + i) * cols + c] = in32[c * colStride + g * 8 + i];
            row += groups * 8;
            continue;
        }
        const int64_t every = repeat(rank - 1);
        auto gather = [&](auto tag) {
            using T = decltype(tag);
            const auto* inT = reinterpret_cast<const T*>(in);
            auto* outT = reinterpret_cast<T*>(out);
            for (int64_t c = 0; c < cols; ++c) outT[c] = inT[c / every * colStride];
        };
        if (elementBytes == 4) gather(uint32_t{});
        else if (elementBytes == 2) gather(uint16_t{});
        else
            for (int64_t c = 0; c < cols; ++c)
                std::memcpy(out + c * int64_t(elementBytes), in + c / every * colStride * int64_t(elementBytes), elementBytes);
        ++row;
    }
}

}  // namespace llama
