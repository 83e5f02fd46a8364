#pragma once
// `llama-viewer --trace A --compare B`: A is replayed as usual; B is read beside it and paired
// with it stage by stage (trace/trace_diff.h) for the Compare panel.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trace/trace_diff.h"

namespace llama::viewer {

struct TraceComparison {
    std::string pathA, pathB;
    std::shared_ptr<const TraceRun> a;
    TraceRun b;
    TraceDiff diff;
    std::vector<int> pairOfA;  // per stage of A, its index in diff.stages, or -1 when B has no partner

    // The pair of A's stage `indexA` (a replayed record's index is its stage's index), or nullptr.
    const StageDifference* pairOf(int indexA) const;
};

// The Compare panel's grid at one token step: rows are the stages (catalog order), columns
// "outside the layers" then each layer. A cell is its most telling pair, or, where a stage ran in
// one run only (a layer the other skipped, a step it did not run), which run has it.
struct CompareGrid {
    enum class Only { Neither, A, B };
    struct Cell {
        const StageDifference* pair = nullptr;
        Only only = Only::Neither;
    };
    std::vector<StageId> stages;
    std::vector<std::vector<Cell>> cells;  // [row][layer + 1]
};
CompareGrid compareGrid(const TraceComparison& cmp, int step);

// The runs' agreement at one stage over every step they share: the largest |A - B| of its paired
// records (the logits: what --no-kv-cache's summary reports), and the steps compared; nullopt
// when no record of that stage pairs.
struct StageAgreement {
    float largest = 0;
    int steps = 0;
    bool exact = true;  // false: a lower bound, from summaries
};
std::optional<StageAgreement> agreementAt(const TraceDiff& diff, StageId stage);
// "logits (stage 19) agree: largest |A - B| 0 over 3 steps" or "... differ: largest |A - B| 0.0123 ...".
std::string agreementText(const StageAgreement& a, StageId stage);

// Pairs B, already read, with A (a patch trace's two runs; pathB names it for the panel).
std::shared_ptr<const TraceComparison> compareRuns(std::shared_ptr<const TraceRun> a, const std::string& pathA, TraceRun b, const std::string& pathB);
// Reads B (throws TraceError) and pairs it with A.
std::shared_ptr<const TraceComparison> compareTraces(std::shared_ptr<const TraceRun> a, const std::string& pathA, const std::string& pathB,
                                                     const std::function<void(size_t done, size_t total)>& progress = {});

}  // namespace llama::viewer
