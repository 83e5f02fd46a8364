#pragma once
// Two recorded runs side by side (`llama-walkthrough diff A.trace B.trace`, the viewer's
// --compare): their stages are paired by token step, layer, stage and order (the same log lines
// first, for marks made by concurrent tasks), and each pair's tensors compared. Where both traces stored a tensor's values (token ids, mask, attention scores,
// the residual stream; docs/trace-format.md) the difference is exact, max |A - B|; elsewhere it
// comes from the recorded summaries (min, max, mean, -inf count, first values) and is a lower
// bound.
#include <optional>
#include <string>
#include <vector>

#include "trace/trace_reader.h"

namespace llama {

struct StageDifference {
    size_t indexA = 0, indexB = 0;  // into each run's stages
    StageId stage = StageId::Tokenize;
    int layer = -1, step = 0;
    std::string tensor;       // the tensor with the largest difference ("" if none differs)
    float difference = 0;     // max |A - B| (infinite where one side has -inf and the other not)
    bool exact = true;        // false: from summaries, a lower bound
    std::string note;         // a difference numbers do not show: "mask only in A", "shape ... vs ...", "message differs"
    bool mismatch = false;    // a tensor only one run has, or with other shapes

    bool diverges() const { return difference != 0 || !note.empty(); }
};

struct TraceDiff {
    std::vector<StageDifference> stages;   // every paired stage, in A's order
    std::optional<size_t> firstDivergence; // into `stages`
    size_t unpairedA = 0, unpairedB = 0;   // stages only one run has (a skipped layer, more steps)
};

TraceDiff diffTraces(const TraceRun& a, const TraceRun& b);

// The largest difference per stage and layer, over all steps or only `step`: rows are the stages
// that happened, in catalog order; columns are "outside the layers" then layers 0..nLayers-1.
// A cell is the most telling of its pairs (a mismatch, then the largest difference), or null
// where the stage does not happen.
struct DiffTable {
    std::vector<StageId> stages;
    std::vector<std::vector<const StageDifference*>> cells;  // [row][layer + 1], pointing into the TraceDiff
};
DiffTable diffTable(const TraceDiff& diff, int nLayers, std::optional<int> step = std::nullopt);

// A cell as the report prints it: "absent" (a tensor one run lacks, or other shapes), the
// difference (">=" when from summaries), "differs" (other token ids, -inf counts or log lines
// with equal numbers), or "0".
std::string diffCell(const StageDifference& s);

// The report `diff` prints: both runs, where they first diverge, and a table of the largest
// difference per stage (rows) and layer (columns), over all steps or only `step`.
std::string formatTraceDiff(const TraceDiff& diff, const TraceRun& a, const TraceRun& b, const std::string& nameA, const std::string& nameB,
                            std::optional<int> step = std::nullopt);

}  // namespace llama
