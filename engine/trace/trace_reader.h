#pragma once
// Loads a trace written by TraceRecorder (docs/trace-format.md) back into memory, for replay:
//
//   TraceRun run = readTrace("run.trace");          // throws TraceError on a bad file
//   for (const TracedStage& s : run.stages) {         // in the order the engine emitted them
//       s.info().title; s.layer; s.step;              // which stage, where in the run
//       if (const TracedTensor* t = s.tensor("scores"); t && t->hasValues())
//           t->values.floatAt(...);                   // F32, t->shape, e.g. [heads, seqLen, positions]
//   }
//   run.cacheFill(i);                                 // KV-cache positions per layer after stage i
//
// Values come back as F32 whatever was stored (bfloat16 or int32); tensors recorded without
// values keep their shape, dtype and summary.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/model_args.h"
#include "tensor/tensor.h"
#include "stages/stage_catalog.h"
#include "tensor/tensor_stats.h"
#include "trace/trace_format.h"

namespace llama {

// A bad trace: not a trace (magic), a newer format (version), cut short (truncated), malformed.
class TraceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct TraceToken {
    int32_t id = 0;
    std::string piece;  // Tokenizer::pieceForDisplay
    bool special = false;
};

struct TraceTopToken {
    int32_t id = 0;
    std::string piece;
    float logit = 0, probability = 0;
};

// A batch of sequences (version 3, trace/batch_trace_reader.h). Cells are [0, n_kv): a cell at
// or past n_kv is free.
struct TracedBatchToken {
    TraceToken token;
    int pos = 0;
    std::vector<int> seqIds;
    bool output = false;  // its logits are wanted
};
struct TracedCell {
    int pos = -1;  // -1: free
    std::vector<int> seqIds;
    bool free() const { return pos < 0; }
};
struct TracedUBatch {  // stage ubatch: the ubatch as a table
    int index = 0, nTokens = 0, nSeqs = 0, nOutputs = 0;
    std::vector<TracedBatchToken> tokens;
};
struct TracedKvSlot {  // stage kv_slot: the cells once find_slot wrote the ubatch into [head, head + nTokens)
    int head = 0, nTokens = 0, used = 0, size = 0, nKV = 0;
    std::vector<TracedCell> cells;
};
struct TracedContextShift {  // stage context_shift: the cells before and after
    int seq = 0, nPast = 0, nKeep = 0, nDiscard = 0;
    std::vector<TracedCell> before, after;
};
struct TracedSequence {  // END: one sequence of the batch
    std::string prompt;
    std::vector<TraceToken> promptTokens, generatedTokens;
    std::string text, stopReason;
    int contextShifts = 0;
};

struct TracedTensor {
    std::string name;
    Shape shape;
    DType dtype = DType::F32;              // as the engine computed it
    std::optional<TensorStats> stats;      // absent when recorded without summaries or in a dry run
    Tensor values;                         // F32 [shape] when the values were stored, else empty
    std::vector<TraceToken> tokens;        // token-id tensors: each id with its piece

    bool hasValues() const { return values.hasData(); }
};

struct TracedStage {
    StageId stage = StageId::Tokenize;
    int layer = -1, step = 0, startPos = 0;
    std::string message;
    std::vector<TracedTensor> tensors;
    std::vector<TraceTopToken> top;    // sample: the most likely next tokens, most likely first
    std::vector<TraceTopToken> topPenalized;  // sample: the same after the repetition penalties (empty when off)
    std::vector<std::vector<TraceTopToken>> lens;  // ffn_residual: the logit lens, per position its top tokens
    std::optional<int> cacheFilled;    // cache_write: positions held in this layer's cache after it
    std::optional<TracedUBatch> ubatch;              // ubatch (a batch trace)
    std::optional<TracedKvSlot> kvSlot;              // kv_slot
    std::optional<TracedContextShift> contextShift;  // context_shift

    const StageInfo& info() const { return stageInfo(stage); }
    // nullptr when this stage has no tensor of that name.
    const TracedTensor* tensor(std::string_view name) const;
};

struct TraceRun {
    uint32_t version = 0;
    std::string modelFormat, modelPath;
    ModelArgs args;
    TraceRunInfo run;
    TraceOptions options;
    std::vector<TracedStage> stages;
    std::vector<TraceToken> promptTokens, generatedTokens;
    std::string generatedText;
    std::string stopReason;  // as GenerationResult: "max tokens", "stopped", ...
    std::vector<TracedSequence> sequences;  // a batch trace (run.batch): each sequence's tokens and text

    // Positions filled in each layer's KV cache once stages [0, stageIndex] have run.
    std::vector<int> cacheFill(size_t stageIndex) const;
};

// What a reader keeps of the stages' stored values: all of them (to show them), or none (a check
// that a file reads back: each stage's values are decoded and checked, then dropped, so it holds
// one record's at a time, not the whole run's, twice the file's size; a run's trace is checked a
// record at a time, by TraceTail with TailValues::Drop).
enum class TraceValues { Keep, Drop };

// progress(done, total): bytes of the file read and then parsed, after each record (for a
// progress bar; the records' parsing is most of the time).
TraceRun readTrace(const std::string& path, const std::function<void(size_t done, size_t total)>& progress = {});
// The same from the file's bytes; `path` names the file in messages.
TraceRun readTraceBytes(std::string_view bytes, const std::string& path, const std::function<void(size_t done, size_t total)>& progress = {});
// A trace still being written (a run held at a stage, after TraceRecorder::flush): its META and
// stage records so far. Nothing of END is there: no token lists, text or stop reason.
TraceRun readTraceSoFar(const std::string& path);

// The parts readTrace is made of, for files that hold more than one run (trace/patch_trace.h).
// The file's bytes (throws TraceError when it cannot be read).
std::string readTraceFile(const std::string& path);
// The header's magic and version (throws TraceError); the version.
uint32_t checkTraceHeader(std::string_view bytes, const std::string& path);
struct TraceRecordView {
    std::string kind;
    std::string_view json, data;
};
// The record at `pos` (record number `index`, for messages), moving `pos` past it.
TraceRecordView nextTraceRecord(std::string_view bytes, size_t& pos, const std::string& path, int index);
// Adds one record to `run` (`first`: the run's first, which must be META); true at END.
bool readTraceRecord(const TraceRecordView& record, TraceRun& run, const std::string& path, int index, bool first);
// One run's records, META to END, from `pos` (the record numbered `firstIndex`), moving `pos` past
// them; without `endRequired`, the bytes may end before END.
TraceRun readTraceRun(std::string_view bytes, size_t& pos, const std::string& path, uint32_t version, int firstIndex,
                      const std::function<void(size_t done, size_t total)>& progress = {}, bool endRequired = true,
                      TraceValues values = TraceValues::Keep);

}  // namespace llama
