#include "model/activation_patch.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "tensor/bfloat16.h"

namespace llama {

Tensor ActivationPatch::apply(const Tensor& activation, Position start) const {
    const int64_t startPos = start.value;
    const int64_t rows = activation.dim(0), dim = activation.dim(activation.rank() - 1);
    const int64_t given = position < 0 ? int64_t(row.size()) / std::max<int64_t>(dim, 1) : 1;
    if (int64_t(row.size()) != given * dim || given == 0)
        throw std::invalid_argument(fmt::format("patch: {} values for an activation of width {}", row.size(), dim));
    // Rows of this pass to change: [first, last), and the patch row each one takes.
    const int64_t first = position < 0 ? 0 : int64_t(position) - startPos;
    const int64_t last = position < 0 ? std::min(rows, given - startPos) : first + 1;
    if (!activation.hasData() || first < 0 || first >= rows || last <= first) return activation;
    Tensor out = activation.clone();
    for (int64_t r = first; r < last; ++r) {
        const float* src = row.data() + (position < 0 ? (startPos + r) * dim : 0);
        if (out.dtype() == DType::BF16) {
            BFloat16* d = out.mutableData<BFloat16>() + r * dim;
            for (int64_t i = 0; i < dim; ++i) d[i] = BFloat16(add ? float(d[i]) + src[i] : src[i]);
        } else {
            float* d = out.mutableData<float>() + r * dim;
            for (int64_t i = 0; i < dim; ++i) d[i] = add ? d[i] + src[i] : src[i];
        }
    }
    return out;
}

const char* siteName(ActivationPatch::Site site) { return site == ActivationPatch::Site::BlockOutput ? "block" : "attention"; }

std::string ActivationPatch::describe() const {
    const std::string what = head >= 0 ? fmt::format("head {}'s output", head + 1) : site == Site::BlockOutput ? "block output" : "attention output";
    const std::string where = position < 0 ? "every position" : fmt::format("position {}", position);
    return fmt::format("patch: {} of layer {} at {} from {}", what, layer + 1, where, source);
}

}  // namespace llama
