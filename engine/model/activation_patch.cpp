#include "model/activation_patch.h"

#include <fmt/format.h>

#include <stdexcept>

#include "tensor/bfloat16.h"

namespace llama {

Tensor ActivationPatch::apply(const Tensor& activation, int startPos) const {
    const int64_t rows = activation.dim(0), dim = activation.dim(activation.rank() - 1);
    const int64_t r = int64_t(position) - startPos;
    if (r < 0 || r >= rows || !activation.hasData()) return activation;
    if (int64_t(row.size()) != dim) throw std::invalid_argument(fmt::format("patch: a row of {} values for an activation of width {}", row.size(), dim));
    Tensor out = activation.clone();
    if (out.dtype() == DType::BF16) {
        BFloat16* d = out.mutableData<BFloat16>() + r * dim;
        for (int64_t i = 0; i < dim; ++i) d[i] = BFloat16(row[size_t(i)]);
    } else {
        float* d = out.mutableData<float>() + r * dim;
        for (int64_t i = 0; i < dim; ++i) d[i] = row[size_t(i)];
    }
    return out;
}

const char* siteName(ActivationPatch::Site site) { return site == ActivationPatch::Site::BlockOutput ? "block" : "attention"; }

std::string ActivationPatch::describe() const {
    return fmt::format("patch: {} of layer {} at position {} from {}", site == Site::BlockOutput ? "block output" : "attention output", layer + 1,
                       position, source);
}

}  // namespace llama
