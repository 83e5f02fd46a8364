#pragma once
// Reads what a version 3 trace records of a batch of sequences (trace/batch_trace_json.h writes
// it): META's `batch`, the `batch` object of a STAG record, END's `sequences`. Each value is
// checked against the model's context and the record's own counts; a bad one throws TraceError
// naming the field ("batch.tokens[2].pos") and what was expected.
#include "trace/trace_fields.h"
#include "trace/trace_reader.h"

namespace llama {

TraceBatchInfo readBatchMeta(const TraceField& batch);
// Fills stage.ubatch, stage.kvSlot or stage.contextShift; a `batch` object on another stage is refused.
void readBatchStage(const TraceField& batch, TracedStage& stage, const ModelArgs& args);
// Each sequence generates at most `maxTokens` (META's run.maxTokens): with context shifts, more
// than its context holds at once.
std::vector<TracedSequence> readBatchSequences(const TraceField& sequences, const ModelArgs& args, int maxTokens);

}  // namespace llama
