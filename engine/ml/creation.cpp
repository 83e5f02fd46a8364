// Tensors made from nothing (Full) and the causal-mask helper TriangularUpper (torch.triu).
#include <algorithm>
#include <cstring>

#include "ml/op_util.h"
#include "ml/ops.h"

namespace llama::ml {

Tensor Full(const Shape& shape, DType dtype, float value) {
    const OpScope profile(OpKind::Full);
    for (int64_t d : shape)
        if (d < 0) detail::fail("Full", "negative dimension in " + detail::shapeStr(shape));
    Tensor y(shape, dtype);
    int64_t n = y.numel();
    switch (dtype) {
        case DType::F32: std::fill_n(y.mutableData<float>(), n, value); break;
        case DType::BF16: std::fill_n(y.mutableData<BFloat16>(), n, BFloat16(value)); break;
        case DType::Complex64: std::fill_n(y.mutableData<Complex64>(), n, Complex64(value, 0.0f)); break;
        case DType::I32: std::fill_n(y.mutableData<int32_t>(), n, int32_t(value)); break;
        default: detail::fail("Full", std::string("cannot fill a ") + dtypeName(dtype) + " tensor (weights-only type)");
    }
    return y;
}

Tensor TriangularUpper(const Tensor& a, int64_t diagonal) {
    const OpScope profile(OpKind::TriangularUpper);
    if (a.rank() != 2) detail::fail("TriangularUpper", "expected a 2-D tensor, got " + a.shapeStr());
    if (!a.hasData()) return Tensor::shapeOnly(a.shape(), a.dtype());
    Tensor y = a.clone();
    int64_t rows = a.dim(0), cols = a.dim(1);
    size_t es = dtypeSize(a.dtype());
    char* p = y.mutableData<char>();
    // Row r keeps columns c >= r + diagonal; all-zero bytes are 0 in every dtype.
    for (int64_t r = 0; r < rows; ++r) {
        int64_t keepFrom = std::clamp<int64_t>(r + diagonal, 0, cols);
        std::memset(p + size_t(r * cols) * es, 0, size_t(keepFrom) * es);
    }
    return y;
}

}  // namespace llama::ml
