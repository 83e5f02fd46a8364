#pragma once
// A pass's logits must be numbers: a NaN or an infinity in them (a control vector or a what-if
// that overflows, a weight that does) would be sampled as token 0 and printed as a NUL byte.
#include <functional>

#include "model/inference_context.h"

namespace llama {

// Runs `pass` (a forward pass returning its logits). When the logits hold a non-finite value the
// pass runs again, watched by NonFiniteWatch alone (stages/non_finite_watch.h), which stops it at
// the first stage that went non-finite: the NonFiniteValues thrown names the step and that stage.
// The check costs one read of the logits; the second pass repeats the first exactly (the same
// cache rows written again with the same values), so the stage it names is the one that failed.
Tensor requireFiniteLogits(InferenceContext& ctx, const std::function<Tensor()>& pass);

}  // namespace llama
