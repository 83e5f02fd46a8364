#pragma once
// What a trace records of a batch of sequences (`llama-walkthrough batch --trace`, version 3 of
// docs/trace-format.md): the `batch` object of the STAG records of the ubatch, kv_slot and
// context_shift stages (the ubatch as a table, the KV cells after find_slot, the cells' positions
// before and after a shift), META's `batch` (the prompts and settings) and END's `sequences`
// (each sequence's tokens and text). The mask built from the cells is kv_mask's `mask` tensor.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "batch/parallel_generation.h"
#include "stages/stage_event.h"
#include "tokenizer/tokenizer.h"
#include "trace/trace_format.h"

namespace llama::trace {

// The stages whose records carry a `batch` object.
bool recordsBatch(StageId stage);
// That object, read from the mark's fields; null when the mark carries no values.
nlohmann::json batchStageJson(const StageEvent& event, const Tokenizer& tokenizer);
nlohmann::json batchMetaJson(const TraceBatchInfo& batch);
// END's `sequences`, in prompt order.
nlohmann::json batchSequencesJson(const std::vector<SequenceResult>& sequences, const std::vector<std::string>& prompts,
                                  const Tokenizer& tokenizer);

}  // namespace llama::trace
