#pragma once
// Helpers for the ml op tests: deterministic random tensors and double-precision readback.
#include <cmath>
#include <random>
#include <vector>

#include "ml/kernels/kernel_set.h"
#include "tensor/tensor.h"

namespace llama::test {

// Values uniform in [lo, hi), stored in dtype (BF16 values are rounded, then read back exactly).
inline Tensor randomTensor(const Shape& shape, DType dtype, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
    Tensor t(shape, dtype);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    for (int64_t i = 0; i < t.numel(); ++i) {
        float v = dist(gen);
        if (dtype == DType::BF16)
            t.mutableData<BFloat16>()[i] = BFloat16(v);
        else
            t.mutableData<float>()[i] = v;
    }
    return t;
}

inline Tensor fromValues(const Shape& shape, DType dtype, const std::vector<float>& values) {
    Tensor t(shape, dtype);
    for (size_t i = 0; i < values.size(); ++i) {
        if (dtype == DType::BF16)
            t.mutableData<BFloat16>()[i] = BFloat16(values[i]);
        else if (dtype == DType::I32)
            t.mutableData<int32_t>()[i] = int32_t(values[i]);
        else
            t.mutableData<float>()[i] = values[i];
    }
    return t;
}

inline std::vector<double> toDoubles(const Tensor& t) {
    std::vector<double> v(size_t(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) v[size_t(i)] = t.floatAt(i);
    return v;
}

// The distance between bf16 neighbours around v: results that are rounded to bf16 once from an
// F32 accumulation may land one step away from the rounded exact value.
inline double bf16Step(double v) {
    int e;
    std::frexp(v == 0 ? 1e-30 : v, &e);
    return std::ldexp(1.0, e - 8);
}

// Runs LinearTransformation on the named kernel path until the end of the scope.
struct UsingKernels {
    std::string previous;
    explicit UsingKernels(const std::string& name) : previous(ml::kernels::active().name) { ml::kernels::useKernels(name); }
    ~UsingKernels() { ml::kernels::useKernels(previous); }
};

}  // namespace llama::test
