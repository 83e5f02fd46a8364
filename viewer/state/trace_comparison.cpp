#include "state/trace_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

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

CompareGrid compareGrid(const TraceComparison& cmp, int step) {
    const int nLayers = std::max(cmp.a->args.n_layers, 0);
    const DiffTable table = diffTable(cmp.diff, nLayers, step);
    std::map<StageId, std::vector<CompareGrid::Cell>> rows;
    for (size_t r = 0; r < table.stages.size(); ++r) {
        auto& row = rows[table.stages[r]];
        for (const StageDifference* d : table.cells[r]) row.push_back({d, CompareGrid::Only::Neither});
    }
    // The stages without a partner, at this step.
    auto markOnly = [&](const TracedStage& s, CompareGrid::Only which) {
        if (s.step != step || s.layer + 1 > nLayers) return;
        auto& row = rows[s.stage];
        row.resize(size_t(nLayers) + 1);
        CompareGrid::Cell& cell = row[size_t(s.layer + 1)];
        if (!cell.pair) cell.only = which;
    };
    for (size_t i = 0; i < cmp.a->stages.size(); ++i)
        if (cmp.pairOfA[i] < 0) markOnly(cmp.a->stages[i], CompareGrid::Only::A);
    std::vector<bool> pairedB(cmp.b.stages.size(), false);
    for (const StageDifference& d : cmp.diff.stages) pairedB[d.indexB] = true;
    for (size_t i = 0; i < cmp.b.stages.size(); ++i)
        if (!pairedB[i]) markOnly(cmp.b.stages[i], CompareGrid::Only::B);
    CompareGrid g;
    for (auto& [stage, row] : rows) g.stages.push_back(stage), g.cells.push_back(std::move(row));
    return g;
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
