#pragma once
// Helpers shared by the op implementations (not part of the ops API).
#include <stdexcept>
#include <string>

#include "ml/op_profile.h"  // every op opens an OpScope
#include "tensor/tensor.h"

namespace llama::ml::detail {

// Every op error reads "<Op>: <what>", with shapes in the walkthrough's shape([a b]) notation.
[[noreturn]] inline void fail(const char* op, const std::string& what) {
    throw std::invalid_argument(std::string(op) + ": " + what);
}

// Elements per pool task for cheap elementwise work: below this, handing a chunk to another
// thread costs more than it saves.
inline constexpr int64_t kElementsPerTask = 16384;
// The same for elements that cost more each (a norm's, a complex product's): a 62-token prefill's
// rows of a 256-wide model split.
inline constexpr int64_t kNormElementsPerTask = 4096;

inline std::string shapeStr(const Shape& s) { return "shape(" + shapeToString(s) + ")"; }

inline bool isFloatType(DType t) { return t == DType::F32 || t == DType::BF16; }

inline void requireFloat(const char* op, const Tensor& t, const char* role) {
    if (!isFloatType(t.dtype()))
        fail(op, std::string(role) + " " + t.shapeStr() + " must be F32 or BF16, got " + dtypeName(t.dtype()));
}

inline void requireDType(const char* op, const Tensor& t, DType want, const char* role) {
    if (t.dtype() != want)
        fail(op, std::string(role) + " " + t.shapeStr() + " must be " + dtypeName(want) + ", got " + dtypeName(t.dtype()));
}

// Element conversions for code templated on the storage type (float or BFloat16):
// ops compute in float and round to the storage type once, as PyTorch's bf16 CPU kernels do.
inline float toF32(float v) { return v; }
inline float toF32(BFloat16 v) { return v.toFloat(); }
template <class T> T fromF32(float v);
template <> inline float fromF32<float>(float v) { return v; }
template <> inline BFloat16 fromF32<BFloat16>(float v) { return BFloat16(v); }

// Calls fn with a value of the C++ type stored in a float tensor (float or BFloat16).
template <class Fn> decltype(auto) visitFloat(DType t, Fn&& fn) {
    if (t == DType::BF16) return fn(BFloat16{});
    return fn(float{});
}

}  // namespace llama::ml::detail
