#include "tensor/tensor.h"

#include <cstring>
#ifdef __GLIBC__
#include <malloc.h>
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

namespace {
// Every step allocates and frees tensors of a few hundred KiB to a few MiB (the cached keys
// and values, their repeated and transposed copies, the logits). glibc serves those with
// mmap/munmap by default, so each step faulted in fresh pages that the kernel zeroed first
// (measured: 5% of decode time). Raising the thresholds keeps them in the reusable heap.
[[maybe_unused]] const bool gHeapTuned = [] {
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
    return true;
}();
}  // namespace

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
    // 64-byte alignment keeps SIMD loads on whole cache lines.
    void* p = ::operator new[](bytes ? bytes : 1, std::align_val_t(64));
    t.owner_ = std::shared_ptr<void>(p, [](void* q) { ::operator delete[](q, std::align_val_t(64)); });
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

Tensor Tensor::reshaped(Shape newShape) const {
    if (shapeNumel(newShape) != numel())
        throw std::invalid_argument("cannot reshape " + shapeStr() + " to shape(" + shapeToString(newShape) + ")");
    Tensor t = *this;
    t.shape_ = std::move(newShape);
    return t;
}

Tensor Tensor::clone() const {
    if (!hasData()) return shapeOnly(shape_, dtype_);
    Tensor t(shape_, dtype_);
    std::memcpy(const_cast<void*>(t.data_), data_, byteSize());
    return t;
}

float Tensor::floatAt(int64_t i) const {
    switch (dtype_) {
        case DType::F32: return data<float>()[i];
        case DType::BF16: return data<BFloat16>()[i].toFloat();
        case DType::Complex64: return data<Complex64>()[i].real();
        case DType::I32: return float(data<int32_t>()[i]);
        default: {
            // F16 and quantized weights: decode the block that holds element i.
            const int64_t bs = dtypeBlockSize(dtype_);
            float block[256];
            dequantize(dtype_, data<char>() + dtypeBytes(dtype_, i / bs * bs), block, bs);
            return block[i % bs];
        }
    }
}

const void* Tensor::checkedData() const {
    if (!data_) throw std::logic_error("tensor " + shapeStr() + " has no data (shape-only tensor)");
    return data_;
}

}  // namespace llama
