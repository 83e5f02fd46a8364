#pragma once
// The run page's numbers for a batch trace (`llama-walkthrough batch --trace`): each ubatch as a
// table (token, pos, seq_ids, output), the KV cells find_slot left (their positions, sequences,
// head; free cells), the mask built from the cells as rows of 0/1 (1: the token sees the cell),
// the last context shift's cells before and after, each sequence's text, and the sequences'
// colours, all from viewer/state/batch_view.h (the viewer's Batch panel reads the same). The
// page's script draws them.
#include <nlohmann/json.hpp>

#include "trace/trace_reader.h"

namespace llama::page {

// null for a trace of one sequence.
nlohmann::json batchPageJson(const TraceRun& run);

}  // namespace llama::page
