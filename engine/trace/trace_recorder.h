#pragma once
// Records a run into a trace file (docs/trace-format.md) that the viewer replays: every stage
// with each tensor's name, shape, dtype and summary, plus the values a viewer draws: token ids
// with their pieces, the causal mask, the attention scores per layer and head, the top tokens
// at each sampling step, the KV-cache fill, the residual stream and the logit lens after every
// layer. Other tensors keep summaries only, which is what
// keeps an 8B trace to megabytes instead of gigabytes.
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "generate/generator.h"
#include "generate/logit_lens.h"
#include "generate/sampler.h"
#include "model/model.h"
#include "formats/atomic_output.h"
#include "stages/stage_event.h"

namespace llama {

struct TraceOptions {
    bool summaries = true;                          // min/max/mean/first values of every tensor
    std::optional<std::set<int>> attentionLayers;   // 0-based layers whose scores are stored; nullopt: all
    bool preSoftmax = false;                        // also the masked scores before the softmax, and the xq and keys
    int maxPositions = 256;                         // no values for steps that reach past this many positions
    int topK = 10;                                  // top tokens recorded at each sampling step
    bool residual = true;                           // values of the residual stream (embeddings, both residual adds)
    int lensTopK = 5;                               // logit lens: top tokens per position after every layer (0: none)

    // The stage flow alone (keys, layers, shapes, dtypes, messages, and the token ids, a few bytes):
    // the floor of what recording costs, which `bench --observer record` measures.
    static TraceOptions metadataOnly();
};

// "all", "none", or 1-based layers such as "1,3-5" (as the log counts) -> 0-based attentionLayers.
// Throws std::invalid_argument naming the bad part.
std::optional<std::set<int>> parseLayerSelection(const std::string& text, int nLayers);

// What was asked of the run, stored so a replay can show it.
struct TraceRunInfo {
    std::string prompt;
    int maxTokens = 0;
    SamplingSettings sampling;
    bool dryRun = false;
    WhatIf whatIf = {};  // the experiment, if the run was one
};

class TraceRecorder : public StageObserver {
public:
    // Creates `path` and writes the META record; throws when the file cannot be written.
    // `lens` (borrowed) computes the logit lens records; none are written without it.
    TraceRecorder(const std::string& path, const Model& model, const TraceRunInfo& run, const TraceOptions& options,
                  const LogitLens* lens = nullptr);

    void onStage(const StageEvent& event) override;
    // Values where it stores them (or the top tokens, or the lens), summaries elsewhere, shapes
    // only in a metadata-only recording.
    StageReads reads(StageId stage, int layer) const override;
    // Writes the END record (prompt and generated tokens, text, stop reason) and closes the file.
    void finish(const GenerationResult& result);
    uint64_t bytesWritten() const { return written_; }

private:
    bool storesValues(const StageEvent& event, const std::string& name, const Tensor& t) const;
    bool mayStoreValues(StageId stage, int layer) const;
    void writeRecord(std::string_view kind, const std::string& json, const std::string& data);

    AtomicOutputFile out_;  // moved into place by finish(): no trace without its END record
    std::string path_;
    std::shared_ptr<const Tokenizer> tokenizer_;
    Sampler sampler_;  // top tokens at the run's temperature, as the sampler saw them
    const LogitLens* lens_;
    TraceOptions options_;
    uint64_t written_ = 0;
    std::string json_, data_;  // one stage record, reused so recording allocates little
};

}  // namespace llama
