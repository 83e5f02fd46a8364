#pragma once
// Where a tensor's values stop being numbers: weights checked at load (model/model.h), a pass's
// logits and every stage's tensors when a run goes non-finite (stages/non_finite_watch.h).
#include <cstdint>
#include <optional>

#include "tensor/tensor.h"

namespace llama {

// The first element (or block, for quantized types: its scales) of `t` that is NaN or infinite;
// -infinity passes when `negativeInfinityAllowed` (a mask's "not seen"). Shape-only tensors and
// integer and complex ones have none. The bits are tested (an exponent of all ones), which the
// compiler vectorises: a whole model file, or a pass's logits, is read at memory speed.
std::optional<int64_t> firstNonFinite(const Tensor& t, bool negativeInfinityAllowed = false);

}  // namespace llama
