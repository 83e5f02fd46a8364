#pragma once
// The trace file's framing, shared by the recorder and the reader (docs/trace-format.md):
//   "LLMTRACE" (8 bytes) · version (u32 LE) · records...
//   record = kind (4 ASCII bytes) · JSON length (u32 LE) · data length (u64 LE) · JSON · data
// Kinds: META (first: model and settings), STAG (one per stage event), END (last: the result);
// PTCH (version 3): an activation-patching grid, followed by two runs (trace/patch_trace.h).
// Tensor values live in a record's data part, described by its JSON. Also what a trace records of
// a run and what it was asked to keep, which the recorder writes and the reader reads back.
#include <bit>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "generate/sampler.h"
#include "model/what_if.h"

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

// A batch of sequences (`llama-walkthrough batch`): its prompts and settings, META's `batch`.
struct TraceBatchInfo {
    std::vector<std::string> prompts;
    int parallel = 1, ubatch = 512;
    bool contextShift = false;
    int keep = 0;
};

// One window of a training step (`llama-walkthrough train --trace`): its forward pass, the loss
// and the backward pass, META's `training`.
struct TraceTrainingInfo {
    int step = 1;     // the training step, from 1 (the records' step)
    int window = 0;   // which of the step's windows, from 0
    int windows = 1;  // windows in the step (--batch)
    float learningRate = 0;
};

// What was asked of the run, stored so a replay can show it.
struct TraceRunInfo {
    std::string prompt;
    int maxTokens = 0;
    SamplingSettings sampling;
    bool dryRun = false;
    WhatIf whatIf = {};  // the experiment, if the run was one
    std::string grammar;  // where the run's grammar came from (a file, "grammar", "json"); empty: none
    std::optional<TraceBatchInfo> batch;  // a batch of sequences; nullopt: one sequence
    std::optional<TraceTrainingInfo> training;  // a training step's window; nullopt: inference
};

}  // namespace llama

namespace llama::trace {

static_assert(std::endian::native == std::endian::little, "trace files are little-endian; this build writes them raw");

inline constexpr std::string_view kMagic = "LLMTRACE";
// 2: META has "whatIf"; residual-stream values and the logit lens ("lens") in stage records.
// 3: a batch of sequences: META's "batch", a "batch" object in the STAG records of the ubatch,
//    kv_slot and context_shift stages, kv_mask's mask values, END's "sequences"
//    (trace/batch_trace_json.h); or an activation-patching file: a PTCH record first, then two
//    runs (trace/patch_trace.h). Versions 1 and 2 read as runs of one sequence.
// 4: a training step's window: META's "training", the loss and backward stages' records with
//    their gradients' values. Versions 1 to 3 read as they did.
// 5: a tensor's values may be stored once per group of alike heads ("repeat" in "values": the
//    keys of a model with fewer KV heads than query heads). Versions 1 to 4 read as they did.
inline constexpr uint32_t kVersion = 5;
inline constexpr uint32_t kFirstBatchVersion = 3;
inline constexpr uint32_t kFirstTrainingVersion = 4;
inline constexpr uint32_t kFirstRepeatVersion = 5;
// A training stage's gradient is stored with its values up to this many elements (8 MB as bf16).
inline constexpr int64_t kMaxGradientValues = int64_t(1) << 22;
inline constexpr size_t kHeaderBytes = 8 + 4;
inline constexpr size_t kRecordHeaderBytes = 4 + 4 + 8;

inline constexpr std::string_view kMetaRecord = "META";
inline constexpr std::string_view kStageRecord = "STAG";
inline constexpr std::string_view kEndRecord = "END ";
inline constexpr std::string_view kPatchRecord = "PTCH";

}  // namespace llama::trace
