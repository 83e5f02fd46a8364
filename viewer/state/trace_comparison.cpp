#include "state/trace_comparison.h"

#include <fmt/format.h>

#include <algorithm>

namespace llama::viewer {

const StageDifference* TraceComparison::pairOf(int indexA) const {
    if (indexA < 0 || indexA >= int(pairOfA.size()) || pairOfA[size_t(indexA)] < 0) return nullptr;
    return &diff.stages[size_t(pairOfA[size_t(indexA)])];
}

std::shared_ptr<const TraceComparison> compareTraces(std::shared_ptr<const TraceRun> a, const std::string& pathA, const std::string& pathB,
                                                     const std::function<void(size_t done, size_t total)>& progress) {
    return compareRuns(std::move(a), pathA, readTrace(pathB, progress), pathB);
}

std::shared_ptr<const TraceComparison> compareRuns(std::shared_ptr<const TraceRun> a, const std::string& pathA, TraceRun b, const std::string& pathB) {
    auto c = std::make_shared<TraceComparison>();
    c->pathA = pathA;
    c->pathB = pathB;
    c->b = std::move(b);
    c->diff = diffTraces(*a, c->b);
    c->pairOfA.assign(a->stages.size(), -1);
    for (size_t i = 0; i < c->diff.stages.size(); ++i) c->pairOfA[c->diff.stages[i].indexA] = int(i);
    c->a = std::move(a);
    return c;
}

std::optional<StageAgreement> agreementAt(const TraceDiff& diff, StageId stage) {
    std::optional<StageAgreement> a;
    for (const StageDifference& d : diff.stages) {
        if (d.stage != stage) continue;
        if (!a) a = StageAgreement{};
        a->largest = std::max(a->largest, d.difference);
        a->exact = a->exact && d.exact;
        a->steps++;
    }
    return a;
}

std::string agreementText(const StageAgreement& a, StageId stage) {
    const StageInfo& info = stageInfo(stage);
    const std::string over = fmt::format("over {} step{}", a.steps, a.steps == 1 ? "" : "s");
    if (!a.exact)  // summaries only: equal ones are no proof of equal values
        return fmt::format("{} (stage {}): largest |A - B| of their summaries (min, max, mean) {:.4g} {}; the traces keep only "
                           "summaries of them, so equal summaries do not prove equal values",
                           info.key, info.number, a.largest, over);
    if (a.largest == 0) return fmt::format("{} (stage {}) agree exactly {}", info.key, info.number, over);
    return fmt::format("{} (stage {}) differ: largest |A - B| {:.4g} {}", info.key, info.number, a.largest, over);
}

}  // namespace llama::viewer
