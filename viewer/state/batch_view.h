#pragma once
// What the viewer's Batch panel, its script facts and the run page show of a batch trace
// (`llama-walkthrough batch --trace`) at one stage: the ubatch going through the model (a table:
// token, pos, seq_ids, output), the KV cells find_slot left for it (coloured by sequence, head
// and free cells marked), the mask built from those cells (block-diagonal causal) and the last
// context shift so far (the cells' positions before and after). Without a window, so tests and
// the page read the same values the panel draws.
#include <optional>
#include <string>

#include "stages/step_controller.h"
#include "state/colour_map.h"
#include "trace/trace_reader.h"

namespace llama::viewer {

struct BatchView {
    int stageIndex = 0;  // the kv_slot or ubatch stage the view belongs to
    int ubatchNumber = 0;  // counted over the whole run from 0 (a llama_decode may make several)
    const TracedUBatch* ubatch = nullptr;
    const TracedKvSlot* slot = nullptr;          // nullptr until find_slot ran for this ubatch
    const TracedTensor* mask = nullptr;          // kv_mask's [n_tokens, n_kv], nullptr until built (or not stored)
    const TracedContextShift* shift = nullptr;   // the last context shift at or before the stage
    // Every shift made between the same two ubatches as the last one, in order (sequences that
    // reach the context's end together shift one after the other: a pair for two prompts).
    std::vector<const TracedContextShift*> shifts;
};

// The view at stage `stageIndex` of `run`: the latest ubatch at or before it. nullopt for a trace
// of one sequence, or before the first ubatch.
std::optional<BatchView> batchViewAt(const TraceRun& run, size_t stageIndex);
// How many ubatches the run made (the Batch panel steps through them).
int ubatchCount(const TraceRun& run);
// The stage index of ubatch `number` (counted as BatchView::ubatchNumber); nullopt past the last.
std::optional<size_t> ubatchStage(const TraceRun& run, int number);
// Where the Batch panel's "< ubatch" and "ubatch >" go for ubatch `number` in a replay that has
// shown `shown` stages: that stage, or (not shown yet) the breakpoint to run the replay to.
// Neither past the last ubatch.
struct UbatchDestination {
    std::optional<size_t> stage;
    std::optional<Breakpoint> runTo;
};
UbatchDestination ubatchDestination(const TraceRun& run, int number, size_t shown);

// A sequence's colour, the same in the viewer and on the page: a fixed palette by id.
Rgb sequenceColour(int seq);
// Several sequences sharing a cell (a prefix copied by seq_cp): their own colour.
inline constexpr Rgb kSharedCellColour{235, 235, 235};
inline constexpr Rgb kFreeCellColour{50, 50, 58};

// The ids as "1" or "0,2".
std::string seqIdsText(const std::vector<int>& ids);
// The facts scripts check (`expect batch-... VALUE`), one word per row or cell:
// the table as seq:pos per token, a '*' after those whose logits are wanted ("1:0 1:1 1:2* 2:0*");
std::string ubatchText(const TracedUBatch& ubatch);
// the cells as their sequences, '.' for a free one ("1 1 1 2 2 .");
std::string cellsText(const std::vector<TracedCell>& cells);
// the cells' positions, '.' for a free one ("0 1 2 0 1 .");
std::string cellPositionsText(const std::vector<TracedCell>& cells);
// the mask's rows, 1 where a token sees a cell ("11100|00011");
std::string maskText(const TracedTensor& mask);
// the shifts, each as its sequence and the cells' positions before -> after, "; " between them.
std::string shiftsText(const std::vector<const TracedContextShift*>& shifts);

}  // namespace llama::viewer
