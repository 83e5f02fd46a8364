#pragma once
// A tensor is a shape (PyTorch row-major order, last dimension contiguous), a dtype and
// a pointer to its bytes. The bytes are owned by `owner`: a heap buffer for computed
// tensors, or a memory-mapped checkpoint file for weights (views, never copies).
// A tensor with no bytes at all is "shape only": dry runs pass those through the whole
// forward pass to show shapes without doing any arithmetic.
// A transposed tensor is a strided view, as in PyTorch: the same bytes read in another order.
// So are attentionRepeatKV's repeated heads: a dimension may read each of its indices several
// times over. (At long context, copying the keys and values into repeated, head-major order
// cost more than the attention products themselves.) Only code that walks strides reads a view
// (`viewData`); everything else asks for row-major bytes and gets a clear error from a view.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tensor/bfloat16.h"
#include "tensor/dims.h"
#include "tensor/dtype.h"

namespace llama {

using Shape = Dims;
using Strides = Dims;  // per dimension, in elements

// Row-major strides of a shape: the last dimension 1, each other the product of those after it.
Strides rowMajorStrides(const Shape& shape);

int64_t shapeNumel(const Shape& shape);
// "[22 4096]"
std::string shapeToString(const Shape& shape);

class Tensor {
public:
    Tensor() = default;
    // Allocates zero-filled storage.
    Tensor(Shape shape, DType dtype);
    // Allocates storage the caller overwrites completely (an op's result): skipping the zero
    // fill halves the memory traffic of copies such as attention's transposes at long context.
    static Tensor uninitialized(Shape shape, DType dtype);
    // A view of bytes owned by someone else (e.g. a mapped file); `owner` keeps them alive.
    static Tensor view(Shape shape, DType dtype, std::shared_ptr<const void> owner, const void* data);
    // A 1-D Int32 tensor holding `values` (token ids).
    static Tensor fromInt32(const std::vector<int32_t>& values);
    // Same shape and dtype, no bytes (dry run).
    static Tensor shapeOnly(Shape shape, DType dtype);
    // A view of `base`'s elements: element (i0, i1, ...) is base element
    // sum((ik / repeats[k]) * strides[k]); no repeats means 1 for every dimension. Elements, not
    // bytes, so only for dtypes of one element per block (not quantized weights).
    static Tensor strided(Shape shape, Strides strides, const Tensor& base, Strides repeats = {});

    const Shape& shape() const { return shape_; }
    int64_t dim(int i) const { return shape_.at(i < 0 ? shape_.size() + i : i); }
    size_t rank() const { return shape_.size(); }
    DType dtype() const { return dtype_; }
    int64_t numel() const { return shapeNumel(shape_); }
    size_t byteSize() const { return dtypeBytes(dtype_, numel()); }
    bool hasData() const { return data_ != nullptr; }
    // False for a strided view whose elements are not in row-major order.
    bool isContiguous() const { return strides_.empty(); }
    Strides strides() const { return strides_.empty() ? rowMajorStrides(shape_) : strides_; }
    Strides repeats() const { return repeats_.empty() ? Strides(shape_.size(), 1) : repeats_; }

    // "shape([22 4096])", the walkthrough's notation.
    std::string shapeStr() const { return "shape(" + shapeToString(shape_) + ")"; }

    template <typename T> const T* data() const { return static_cast<const T*>(checkedData()); }
    // Writable access; only for tensors we allocated (mapped weights are read-only).
    template <typename T> T* mutableData() {
        if (!writable_) throw std::logic_error("tensor is a read-only view");
        return static_cast<T*>(const_cast<void*>(checkedData()));
    }
    const void* rawData() const;
    // The first element of a tensor that may be a strided view; read it with strides().
    template <typename T> const T* viewData() const { return static_cast<const T*>(data_); }

    // A tensor of the same bytes with another shape (same element count).
    Tensor reshaped(Shape newShape) const;
    // An independent row-major copy (observers take these, so nothing changes under them).
    Tensor clone() const;

    // Element i (flat row-major index) as float, whatever the dtype (Complex64: real part). For
    // tests and summaries.
    float floatAt(int64_t i) const;

private:
    const void* checkedData() const;

    Shape shape_;
    Strides strides_;  // empty: row-major
    Strides repeats_;  // empty: 1 for every dimension
    DType dtype_ = DType::F32;
    std::shared_ptr<const void> owner_;
    const void* data_ = nullptr;
    bool writable_ = false;
};

// Copies rows [row0, row1) of a strided view (as Tensor::strided) into `dst`, the view's
// row-major copy (a row is the last dimension; dst points at row 0). ml::Contiguous runs it on
// the pool's threads.
void copyStridedRows(const Shape& shape, const Strides& strides, const Strides& repeats, size_t elementBytes, const void* src,
                     void* dst, int64_t row0, int64_t row1);

}  // namespace llama
