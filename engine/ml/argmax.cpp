// Argmax: greedy sampling's pick over the logits.
#include <cmath>

#include "ml/op_util.h"
#include "ml/ops.h"

namespace llama::ml {

// Ties keep the first index (strict >); a NaN counts as the maximum, as in torch.argmax.
// A shape-only tensor has no values to compare, so the dry run gets index 0.
int64_t Argmax(const Tensor& a) {
    const OpScope profile(OpKind::Argmax);
    constexpr const char* op = "Argmax";
    detail::requireFloat(op, a, "a");
    if (a.rank() != 1 || a.dim(0) == 0) detail::fail(op, "expected a non-empty 1-D tensor, got " + a.shapeStr());
    if (!a.hasData()) return 0;
    int64_t best = 0;
    float bestValue = a.floatAt(0);
    for (int64_t i = 0; i < a.dim(0) && !std::isnan(bestValue); ++i) {
        float v = a.floatAt(i);
        if (v > bestValue || std::isnan(v)) {
            best = i;
            bestValue = v;
        }
    }
    return best;
}

}  // namespace llama::ml
