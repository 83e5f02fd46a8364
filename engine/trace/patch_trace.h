#pragma once
// An activation-patching trace (`llama-walkthrough patch --trace FILE`, docs/trace-format.md,
// version 3): the layer x position (or layer x head) grid of the logit difference recovered,
// followed by the clean run and the corrupted run, each a whole trace's records (META ... END),
// so the viewer and `export-html` can open a cell's stage in both runs.
//
//   file = "LLMTRACE" version(3) PTCH-record clean-run corrupt-run
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stages/stage_catalog.h"
#include "trace/trace_reader.h"

namespace llama {

struct PatchGrid {
    std::string site;   // "block", "attention" (layer x position) or "head" (layer x head)
    std::string align;  // "same", "start", "end": how the prompts' positions pair
    TraceToken answer, wrong;
    double cleanDiff = 0, corruptDiff = 0;  // logit(answer) - logit(wrong) at the last position
    int layers = 0, columns = 0;            // columns: paired positions, or heads
    std::vector<int> cleanPosition, corruptPosition;  // per column of a position grid (empty for heads)
    std::vector<double> patchedDiff;        // [layers * columns], row by row

    bool heads() const { return site == "head"; }
    // (patched - corrupt) / (clean - corrupt): 1 = the clean run's answer, 0 = the corrupted run's.
    double recovered(int layer, int column) const;
    // The stage whose tensor a cell patched: ffn_residual's output, attention_wo's output, or the
    // heads' outputs before attn_wo (attention_reshape).
    StageId stage() const;
};

struct PatchTrace {
    uint32_t version = 0;
    PatchGrid grid;
    TraceRun clean, corrupt;
};

// Writes the grid and the two runs' recorded traces (TraceRecorder files, whose records are
// copied) as one file, atomically. Throws TraceError when a run's file is not a whole trace.
void writePatchTrace(const std::string& path, const PatchGrid& grid, const std::string& cleanTrace, const std::string& corruptTrace);

// Throws TraceError naming the file, record and field: not a patch trace, a grid whose size is
// not layers x columns or does not fit the runs (layers, positions, heads), a damaged run.
PatchTrace readPatchTrace(const std::string& path);
// The same from the file's bytes; `path` names the file in messages.
PatchTrace readPatchTraceBytes(std::string_view bytes, const std::string& path);

// Whether `path` is a regular file, a trace whose first record is PTCH (false for anything else,
// even unreadable; a FIFO is not opened).
bool isPatchTrace(const std::string& path);

}  // namespace llama
