#pragma once
// Records a run into a trace file (docs/trace-format.md) that the viewer replays: every stage
// with each tensor's name, shape, dtype and summary, plus the values a viewer draws: token ids
// with their pieces, the causal mask, the attention scores per layer and head, the top tokens
// at each sampling step, the KV-cache fill, the residual stream and the logit lens after every
// layer. Other tensors keep summaries only, which is what
// keeps an 8B trace to megabytes instead of gigabytes.
//
// A stage's tensors are read at its mark (they are borrowed), but its record is written as JSON
// on a thread of the recorder's own: a trace makes hundreds of records a token, and writing their
// text on the engine's thread made a traced run twice as slow as a plain one.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "batch/parallel_generation.h"
#include "generate/generator.h"
#include "generate/logit_lens.h"
#include "generate/sampler.h"
#include "model/model.h"
#include "io/atomic_output.h"
#include "stages/stage_event.h"
#include "trace/trace_format.h"
#include "trace/trace_json.h"

namespace llama {

class TraceRecorder : public StageObserver {
public:
    // Creates `path` and writes the META record; throws when the file cannot be written.
    // `lens` (borrowed) computes the logit lens records; none are written without it.
    TraceRecorder(const std::string& path, const Model& model, const TraceRunInfo& run, const TraceOptions& options,
                  const LogitLens* lens = nullptr);
    // Without finish(), the records still queued are written and the file is removed.
    ~TraceRecorder() override;
    TraceRecorder(const TraceRecorder&) = delete;
    TraceRecorder& operator=(const TraceRecorder&) = delete;

    // Reads what the record needs of the event's tensors and queues it for the writer thread; a
    // write that failed since (a full disk) is thrown here, a few hundred records after it.
    void onStage(const StageEvent& event) override;
    // Values where it stores them (or the top tokens, or the lens), summaries elsewhere, shapes
    // only in a metadata-only recording.
    StageReads reads(StageId stage, int layer) const override;
    // A whole cache's summary only (cache_write stores no values).
    bool readsWholeCaches() const override { return false; }
    // Writes the queued records and the END record (prompt and generated tokens, text, stop
    // reason) and closes the file.
    void finish(const GenerationResult& result);
    // The same for a training step's window (run.training): its tokens, forward and backward in `seconds`.
    void finishTraining(const std::vector<int32_t>& window, double seconds);
    // The same for a batch of sequences (`batch`): END's "sequences" hold each one's tokens and text.
    void finishBatch(const ParallelResult& result, const std::vector<std::string>& prompts);
    // The bytes written so far; all of them once finish() returned.
    uint64_t bytesWritten() const;
    // On the engine's thread, between stages (a run held at a stage): writes every record queued
    // so far and flushes the file, so readTraceSoFar can read the run up to here; the file's path
    // (a temporary name until finish()). Throws as onStage does when a write failed.
    const std::string& flush();

private:
    // A stage record with everything read from the event's borrowed tensors, waiting for the
    // writer thread to write it as JSON.
    struct PendingTensor {
        std::string name;
        Shape shape;
        DType dtype;
        std::optional<TensorStats> stats;
        int64_t valuesOffset = -1;  // into the record's data; -1: no values stored
        size_t valuesBytes = 0;
        int repeat = 1;  // each head's values stored once for this many alike heads in a row
        std::vector<int32_t> tokens;  // stored token ids before the padding, for their pieces
    };
    struct PendingRecord {
        StageId stage;
        int layer, step, startPos;
        std::string message;
        std::vector<PendingTensor> tensors;
        size_t tensorCount = 0;  // tensors beyond this are kept only for their buffers' reuse
        std::string extra;       // stage-specific JSON members after the tensors
        std::string data;        // the stored values, in the tensors' order
        // Copies the writer turns into the sample stage's top tokens (sorting the vocabulary).
        std::optional<Tensor> logits, penalizedLogits;
    };
    // Records go to the writer in batches, so the hand-over costs a lock per batch, not per stage;
    // written batches come back for reuse, so a record's strings keep their capacity.
    static constexpr size_t kBatchRecords = 64, kMaxQueuedBatches = 32;

    bool storesValues(const StageEvent& event, const std::string& name, const Tensor& t) const;
    bool mayStoreValues(StageId stage, int layer) const;
    void handOver();
    void stopWriter();
    void writerLoop();
    void writeStage(const PendingRecord& r);
    void writeEnd(const nlohmann::json& end);
    void writeRecord(std::string_view kind, const std::string& json, const std::string& data);

    AtomicOutputFile out_;  // moved into place by finish(): no trace without its END record
    std::string path_;
    std::shared_ptr<const Tokenizer> tokenizer_;
    Sampler sampler_;  // top tokens at the run's temperature, as the sampler saw them
    const LogitLens* lens_;
    TraceOptions options_;
    int headRepeat_;    // query heads per KV head: how often the keys' heads repeat
    std::string json_;  // the writer thread's record text, reused
    trace::StatsText statsText_;  // the writer thread's

    std::vector<PendingRecord> batch_;  // the engine's side, not yet handed over
    size_t batchUsed_ = 0;
    mutable std::mutex mutex_;  // guards what follows
    std::condition_variable wake_, room_;
    std::deque<std::vector<PendingRecord>> queued_, spare_;
    bool closing_ = false;
    bool writing_ = false;  // the writer holds a batch it has not written yet
    std::exception_ptr failure_;
    // Counted without the lock: the writer adds to it once a record, and a lock there was 1% of a
    // traced run's time (perf, issue 35).
    std::atomic<uint64_t> written_ = 0;
    std::thread writer_;  // last: started once everything above exists
};

}  // namespace llama
