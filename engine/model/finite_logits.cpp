#include "model/finite_logits.h"

#include <fmt/format.h>

#include "stages/non_finite_watch.h"
#include "ml/non_finite.h"

namespace llama {

Tensor requireFiniteLogits(InferenceContext& ctx, const std::function<Tensor()>& pass) {
    Tensor logits = pass();
    const auto bad = firstNonFinite(logits);
    if (!bad) return logits;
    NonFiniteWatch watch;
    {
        const auto watched = ctx.observedOnlyBy({&watch});
        pass();
    }
    throw NonFiniteValues(fmt::format("step {}: the logits hold a non-finite value at element {}, but the step run again was finite at "
                                      "every stage",
                                      ctx.step, *bad));
}

}  // namespace llama
