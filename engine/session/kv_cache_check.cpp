#include "session/kv_cache_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace llama {

void StepLogits::onStage(const StageEvent& event) {
    if (event.stage != StageId::Sample) return;
    for (const auto& t : event.tensors)
        if (t.name == "logits" && t.tensor->hasData()) logits_.push_back(t.tensor->clone());
}

LogitsComparison compareStepLogits(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
    LogitsComparison c;
    c.sameSteps = a.size() == b.size();
    for (size_t step = 0; step < std::min(a.size(), b.size()); ++step) {
        if (a[step].shape() != b[step].shape()) {
            c.sameSteps = false;
            continue;
        }
        for (int64_t i = 0; i < a[step].numel(); ++i) {
            const float d = std::fabs(a[step].floatAt(i) - b[step].floatAt(i));
            if (d > c.maxDifference || std::isnan(d)) c.maxDifference = d, c.worstStep = int(step);
        }
    }
    return c;
}

std::string kvCacheAgreement(const std::vector<Tensor>& without, const std::vector<Tensor>& with, bool sameTokens) {
    const LogitsComparison c = compareStepLogits(without, with);
    if (!c.sameSteps || !sameTokens)
        return fmt::format("The two runs differ: {} vs {} steps, generated tokens {}.", without.size(), with.size(), sameTokens ? "equal" : "differ");
    if (c.maxDifference == 0) return fmt::format("Logits of all {} steps are equal: the cache changes the cost, not the result.", with.size());
    return fmt::format("Logits differ slightly: the largest difference is {:.6g} (step {}). The recomputed steps multiply matrices of many "
                       "rows where the cached ones multiply one row, and those kernels round in another order; the generated tokens are "
                       "the same.",
                       c.maxDifference, c.worstStep);
}

}  // namespace llama
