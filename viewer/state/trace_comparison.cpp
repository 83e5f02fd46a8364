#include "state/trace_comparison.h"

namespace llama::viewer {

const StageDifference* TraceComparison::pairOf(int indexA) const {
    if (indexA < 0 || indexA >= int(pairOfA.size()) || pairOfA[size_t(indexA)] < 0) return nullptr;
    return &diff.stages[size_t(pairOfA[size_t(indexA)])];
}

std::shared_ptr<const TraceComparison> compareTraces(std::shared_ptr<const TraceRun> a, const std::string& pathA, const std::string& pathB,
                                                     const std::function<void(size_t done, size_t total)>& progress) {
    auto c = std::make_shared<TraceComparison>();
    c->pathA = pathA;
    c->pathB = pathB;
    c->b = readTrace(pathB, progress);
    c->diff = diffTraces(*a, c->b);
    c->pairOfA.assign(a->stages.size(), -1);
    for (size_t i = 0; i < c->diff.stages.size(); ++i) c->pairOfA[c->diff.stages[i].indexA] = int(i);
    c->a = std::move(a);
    return c;
}

}  // namespace llama::viewer
