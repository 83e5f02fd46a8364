// Fwd_Get_Rows: the embedding lookup, one table row copied (or decoded) per token.
#include <cstring>

#include "ml/op_util.h"
#include "ml/ops.h"
#include "tensor/quant_blocks.h"

namespace llama::ml {

Tensor Fwd_Get_Rows(const Tensor& table, const Tensor& tokens) {
    const OpScope profile(OpKind::Fwd_Get_Rows);
    constexpr const char* op = "Fwd_Get_Rows";
    detail::requireDType(op, tokens, DType::I32, "tokens");
    if (table.rank() != 2 || tokens.rank() != 1)
        detail::fail(op, "expected table [V, D] and tokens [S], got table " + table.shapeStr() + " and tokens " +
                             tokens.shapeStr());
    Shape outShape{tokens.dim(0), table.dim(1)};
    // An F16 or quantized table (GGUF) gives F32 rows, the type ggml computes in. Complex rows
    // (the RoPE table, gathered at a batch's positions) are copied as they are.
    const bool decode = !detail::isFloatType(table.dtype()) && table.dtype() != DType::Complex64;
    const DType outType = decode ? DType::F32 : table.dtype();
    if (!table.hasData() || !tokens.hasData()) return Tensor::shapeOnly(outShape, outType);
    Tensor y(outShape, outType);
    size_t rowBytes = dtypeBytes(table.dtype(), table.dim(1));
    const int32_t* ids = tokens.data<int32_t>();
    for (int64_t s = 0; s < tokens.dim(0); ++s) {
        if (ids[s] < 0 || ids[s] >= table.dim(0))
            detail::fail(op, "token id " + std::to_string(ids[s]) + " at position " + std::to_string(s) +
                                 " is outside [0, " + std::to_string(table.dim(0)) + ") for table " + table.shapeStr());
        const char* row = static_cast<const char*>(table.rawData()) + size_t(ids[s]) * rowBytes;
        if (decode)
            dequantize(table.dtype(), row, y.mutableData<float>() + s * table.dim(1), table.dim(1));
        else
            std::memcpy(y.mutableData<char>() + size_t(s) * rowBytes, row, rowBytes);
    }
    return y;
}

}  // namespace llama::ml
