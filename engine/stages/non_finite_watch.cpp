#include "stages/non_finite_watch.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ml/ops.h"
#include "tensor/bfloat16.h"
#include "ml/non_finite.h"

namespace llama {

namespace {
std::string valueName(const Tensor& t, int64_t i) {
    if (t.dtype() != DType::F32 && t.dtype() != DType::BF16) return "a NaN or an infinity";
    const float v = t.dtype() == DType::BF16 ? float(t.data<BFloat16>()[i]) : t.data<float>()[i];
    return std::isnan(v) ? "NaN" : v > 0 ? "+infinity" : "-infinity";
}
}  // namespace

void NonFiniteWatch::onStage(const StageEvent& event) {
    // A stage that builds or adds a mask holds -infinity where a token does not see a position.
    const bool masks = std::any_of(event.fields.begin(), event.fields.end(), [](const StageField& f) { return std::string_view(f.name) == "mask"; });
    for (const StageTensor& st : event.tensors) {
        const Tensor t = st.tensor->isContiguous() ? *st.tensor : ml::Contiguous(*st.tensor);
        const auto bad = firstNonFinite(t, masks);
        if (!bad) continue;
        const StageInfo& info = event.info();
        throw NonFiniteValues(fmt::format("step {}: the values went non-finite first at stage {} '{}' ({}){}: tensor '{}' {} holds {} at "
                                          "element {}",
                                          event.step, info.number, info.key, info.title,
                                          event.layer >= 0 ? fmt::format(" in layer {}", event.layer + 1) : std::string(), st.name,
                                          t.shapeStr(), valueName(t, *bad), *bad));
    }
}

}  // namespace llama
