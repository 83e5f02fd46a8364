#include "no_kv_cache_report.h"

#include <fmt/format.h>

#include <cmath>

namespace llama::cli {

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

void reportKvCacheExperiment(Session& session, const GenerationResult& without, const StepLogits& withoutLogits) {
    StepLogits withLogits;
    session.clearObservers();
    session.addObserver(&withLogits);
    GenerationSettings& s = session.settings();
    s.whatIf.noKvCache = false;
    const GenerationResult with = session.run();
    s.whatIf.noKvCache = true;
    auto perToken = [](const GenerationResult& r) { return r.decodeSteps ? 1000 * r.decodeSeconds / r.decodeSteps : 0.0; };
    fmt::print("What-if --no-kv-cache: {} decode steps took {:.3f} s ({:.2f} ms per token) recomputing the whole sequence; "
               "with the KV cache they take {:.3f} s ({:.2f} ms per token).\n",
               without.decodeSteps, without.decodeSeconds, perToken(without), with.decodeSeconds, perToken(with));
    const LogitsComparison c = compareStepLogits(withoutLogits.logits(), withLogits.logits());
    if (!c.sameSteps || without.generatedTokens != with.generatedTokens)
        fmt::print("The two runs differ: {} vs {} steps, generated tokens {}.\n", withoutLogits.logits().size(), withLogits.logits().size(),
                   without.generatedTokens == with.generatedTokens ? "equal" : "differ");
    else if (c.maxDifference == 0)
        fmt::print("Logits of all {} steps are equal: the cache changes the cost, not the result.\n", withLogits.logits().size());
    else
        fmt::print("Logits differ slightly: the largest difference is {:.6g} (step {}). The recomputed steps multiply matrices of many "
                   "rows where the cached ones multiply one row, and those kernels round in another order; the generated tokens are "
                   "the same.\n",
                   c.maxDifference, c.worstStep);
}

}  // namespace llama::cli
