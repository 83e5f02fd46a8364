#include "model/gradient_norms.h"

namespace llama {

double l2Norm(const Tensor& t) {
    double squares = 0;
    const int64_t n = t.numel();
    if (t.dtype() == DType::F32 && t.isContiguous()) {
        const float* v = t.data<float>();
        for (int64_t i = 0; i < n; ++i) squares += double(v[i]) * double(v[i]);
    } else {
        for (int64_t i = 0; i < n; ++i) squares += double(t.floatAt(i)) * double(t.floatAt(i));
    }
    return std::sqrt(squares);
}

}  // namespace llama
