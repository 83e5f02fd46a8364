#pragma once
// The Patching panel's model (`patch --trace`, trace/patch_trace.h), without ImGui: a cell's
// words, the stage it patched in both runs, and the colour scale the panel and the run page share.
#include <optional>
#include <string>
#include <vector>

#include "trace/patch_trace.h"

namespace llama::viewer {

struct PatchCell {
    int layer = 0;   // 0-based
    int column = 0;  // a column of paired positions, or a head (0-based)
    bool operator==(const PatchCell&) const = default;
};

// The column's heading: "10 unto" (the corrupted prompt's position and token, "Moses/Joseph"
// where the prompts differ), or "head 3".
std::string patchColumnLabel(const PatchGrid& g, const TraceRun& clean, const TraceRun& corrupt, int column);

// "layer 5, position 10 \" unto\": recovered 0.67 (logit difference -0.03; clean 0.50, corrupted -1.09)"; the
// corrupted prompt's position, "position 4 (clean 2)" where aligned prompts pair different ones.
std::string patchCellText(const PatchGrid& g, const TraceRun& clean, const TraceRun& corrupt, PatchCell cell);

// The index in `run` of the cell's stage (the patched site at that layer) in the prefill: a
// replayed record's index is its stage's index. nullopt when the run has none.
std::optional<int> patchStageIndex(const PatchGrid& g, const TraceRun& run, int layer);

// The row a cell patched, in one run: the site's tensor at the cell's position in that run (the
// clean position for the clean run), when the trace kept its values (the residual stream, for
// block sites); empty otherwise.
std::vector<float> patchedRow(const PatchGrid& g, const TraceRun& run, PatchCell cell, bool clean);

}  // namespace llama::viewer
