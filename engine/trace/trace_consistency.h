#pragma once
// What one record of a trace says about another must hold (docs/trace-format.md): each record is
// checked on its own as it is read (trace_reader.cpp, batch_trace_reader.cpp); these checks run
// once a run's records are all read, so that no reader of a trace has to make them:
//   - within a token step, the attention tensors agree on their rows and positions, and with the
//     model's heads and head size;
//   - steps never go back, and there are no more of them than the tokens END lists (each step
//     decodes at least one);
//   - every sequence id is one META declares (0 in a run of one sequence; in a batch, 0 for the
//     shared prefix and one per place of --parallel), and context shifts happen only in a batch
//     run with --context-shift, as many as END counts;
//   - END lists one sequence per prompt of META, in META's order.
// A failure throws TraceError naming the file, the record and what was expected.
#include <string>

#include "trace/trace_reader.h"

namespace llama {

// `firstRecord`: the number of the run's META record in the file (a patch trace's second run
// starts after the first). Without `ended` (a run still being written) END's checks are left out.
void checkTraceRecordsAgree(const TraceRun& run, const std::string& path, int firstRecord, bool ended);

// The most steps a run can make: every sequence's prompt fills at most the context, and it
// generates at most maxTokens (a context shift frees cells, not more tokens). A record's `step` is
// bounded by it before END says how many tokens there were.
int maxTraceStep(const TraceRun& run);

}  // namespace llama
