#pragma once
// What the engine tells its observers after each stage: which stage, where in the run, the
// named values the stage's log line speaks of (tensors, numbers, text), the line(s) themselves
// in the walkthrough's wording, and the tensors the stage produced. Tensors are borrowed for the
// duration of the call; an observer that keeps one clones it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "stages/stage_catalog.h"
#include "tensor/tensor.h"
#include "tensor/tensor_stats.h"

namespace llama {

// One named value at a stage mark: {"xq", xq}, {"N_Rep", 4}, {"phase", "prefill"}. A tensor is
// borrowed; an absent optional tensor (no mask) is a null pointer and prints as shape([]).
struct StageField {
    StageField(const char* name, const Tensor& t) : name(name), value(&t) {}
    StageField(const char* name, const std::optional<Tensor>& t) : name(name), value(t ? &*t : nullptr) {}
    StageField(const char* name, int64_t v) : name(name), value(v) {}
    StageField(const char* name, std::string v) : name(name), value(std::move(v)) {}

    const char* name;
    std::variant<const Tensor*, int64_t, std::string> value;
};

struct StageTensor {
    std::string name;
    const Tensor* tensor;
};

// Summaries the engine keeps and gives without reading a tensor whole (the KV cache's,
// model/cache_summaries.h); nullopt for any other tensor.
class KnownSummaries {
public:
    virtual ~KnownSummaries() = default;
    virtual std::optional<TensorStats> find(const Tensor& t) const = 0;
};

struct StageEvent {
    StageId stage;
    int layer = -1;     // 0-based transformer layer, -1 outside the blocks
    int step = 0;       // token step: 0 is the prefill, then one per generated token
    int startPos = 0;
    bool skipped = false;  // the operation did not run (see StageInfo::skipped)
    std::vector<StageField> fields;
    std::string message;  // one or more log lines, '\n'-separated
    std::vector<StageTensor> tensors;

    const StageInfo& info() const { return stageInfo(stage); }
    // A tensor among the fields that the catalog does not record; nullptr when absent.
    const Tensor* tensorField(std::string_view name) const;
    // A number among the fields; nullopt when absent.
    std::optional<int64_t> numberField(std::string_view name) const;
    // The summary of tensors[i], computed on the first request and kept for every observer that
    // asks after it (marks reach the observers one at a time, so this needs no lock).
    const TensorStats& stats(size_t i) const;

    mutable std::vector<std::optional<TensorStats>> statsCache = {};
    const KnownSummaries* known = nullptr;  // asked before a summary is computed
};

// The sample stage's field holding the logits after the repetition penalties (absent when off).
inline constexpr const char* kPenalizedLogits = "penalizedLogits";

// The event for a stage mark: the message written from the catalog's wording with `fields`
// (unless `wording` is false: no observer reads it), and the tensors the catalog says the stage records.
StageEvent makeStageEvent(StageId stage, int layer, int step, int startPos, bool skipped, std::vector<StageField> fields, bool wording = true);

// What an observer reads of a stage's tensors, so that an observed run pays only for that.
enum class StageReads {
    Handles,     // only the tensors as the engine holds them (strided views included): when every
                 // observer of a stage says so, its message and text fields are not made
    Shapes,      // names, shapes, dtypes and the message: the tensors may be strided views
    Statistics,  // also StageEvent::stats (computed once per event, whoever asks first)
    Values,      // also the values in row-major order: each strided view is copied once per event
};

class StageObserver {
public:
    virtual ~StageObserver() = default;
    // Asked before each mark of `stage` in `layer` (-1 outside the blocks); the engine prepares
    // the most any attached observer reads. Values by default: an observer that does not say
    // gets everything.
    virtual StageReads reads(StageId /*stage*/, int /*layer*/) const { return StageReads::Values; }
    // Whether, reading a stage's statistics or values, this observer reads a whole KV cache's
    // elements (cache_write's cacheK) rather than only the summary the event carries for it
    // (StageEvent::stats). A run writes only the cache rows it reaches, and the rest is zeroed
    // before a whole cache reaches an observer that reads it. Yes unless an observer says not.
    virtual bool readsWholeCaches() const { return true; }
    // Called one mark at a time, in order; the Q/K/V tasks' marks (qkv_task) come from their
    // own threads. Blocking here holds the engine at this stage.
    virtual void onStage(const StageEvent& event) = 0;
};

// Thrown from an observer (or by the engine when a stop was requested) to end a generation
// cleanly from any stage.
struct GenerationStopped {};

}  // namespace llama
