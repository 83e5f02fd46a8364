#pragma once
// What the viewer remembers of a run: one record per stage event (with clones of its tensors),
// one entry per token step (top logits, the sampled token) and the token at every position.
// Memory: full tensors are kept for the current token step; when a new step starts, older
// records keep only small tensors (masks, token ids, decode rows), the prefill's attention within
// its own budget, and summaries of the rest,
// the older steps' small tensors together within their own budget (the oldest go first), and a
// byte budget drops the oldest tensors of a very large step (an 8B prefill). So tensor data
// never exceeds MemoryPolicy::budget, and once the older steps' budget is full a long run grows
// only by its records' summaries (names, shapes, statistics, the log line: about 1 KB a stage).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "generate/sampler.h"
#include "stages/stage_event.h"
#include "tensor/tensor_stats.h"

namespace llama::viewer {

struct CapturedTensor {
    std::string name;
    Shape shape;
    DType dtype = DType::F32;
    TensorStats stats;
    std::optional<Tensor> data;  // empty once dropped (or for a shape-only dry run)
};

struct StageRecord {
    int index = 0;  // position in the history
    StageId stage{};
    int layer = -1;
    int step = 0;
    int startPos = 0;
    int seqLen = 0;  // tokens going through this step's forward pass
    std::string message;
    std::vector<CapturedTensor> tensors;
    std::vector<std::vector<TokenProbability>> lens;  // ffn_residual: the logit lens, per position its top tokens

    const CapturedTensor* find(std::string_view name) const;
    const StageInfo& info() const { return stageInfo(stage); }
};

// A sample stage's most likely next tokens, as the model gave them and after the repetition
// penalties (empty when they are off): what the sampler chose from.
struct SampleTops {
    std::vector<TokenProbability> top, penalized;
};

struct StepInfo {
    int step = 0;
    int startPos = 0;
    int seqLen = 0;
    std::vector<TokenProbability> top;  // the most likely next tokens at the sampling temperature
    std::vector<TokenProbability> topPenalized;  // the same after the repetition penalties; empty when off
    int32_t sampled = -1;               // -1 until the sample stage
    float sampledProbability = 0;       // 0 when the sampled token is outside `top` (`topPenalized` when penalized)
};

// What a trace recorded of a tensor besides its values: the dtype the engine computed it in (the
// trace holds F32 values of BF16 tensors) and its statistics (a summary-only tensor has no values
// to compute them from).
struct RecordedTensor {
    DType dtype;
    std::optional<TensorStats> stats;
};

struct MemoryPolicy {
    size_t keepOldTensorsBelow = 64 * 1024;           // bytes: older steps keep tensors this small
    size_t olderStepsBudget = size_t(32) * 1024 * 1024;  // bytes of tensor data all older steps keep
    size_t budget = size_t(768) * 1024 * 1024;        // bytes of tensor data in all
    // The prefill's attention (scores before and after the softmax, the transposed xq and keys a
    // cell's arithmetic reads) is what a teacher shows most: kept whole, layer by layer from the
    // first, up to this many bytes, after the run moves on to the decode steps.
    size_t prefillAttentionBudget = size_t(96) * 1024 * 1024;
};

// The stages whose tensors MemoryPolicy::prefillAttentionBudget keeps for the prefill.
bool isAttentionStage(StageId stage);

class RunHistory {
public:
    explicit RunHistory(MemoryPolicy policy = {}) : policy_(policy) {}

    // Clones the event's tensors (a replayed stage's, `recorded` given, are shared: a trace's values
    // are never written). `tops` is given at the logits stage (the top tokens) and the
    // sample stage (the top tokens if the logits stage gave none, the penalized ones); `recorded`, when given,
    // replaces the tensors' dtypes and statistics with a trace's; `lens` at ffn_residual stages.
    void add(const StageEvent& event, SampleTops tops = {}, const std::vector<RecordedTensor>* recorded = nullptr,
             std::vector<std::vector<TokenProbability>> lens = {});
    void appendText(const std::string& piece) { text_ += piece; }
    // The logit lens of record `index` (an ffn_residual stage), computed after it was captured.
    void setLens(size_t index, std::vector<std::vector<TokenProbability>> lens);

    const std::vector<std::shared_ptr<const StageRecord>>& records() const { return records_; }
    const std::vector<StepInfo>& steps() const { return steps_; }
    const std::vector<int32_t>& positionTokens() const { return positionTokens_; }
    const std::vector<int32_t>& promptTokens() const { return promptTokens_; }
    const std::string& text() const { return text_; }
    // Bytes of tensor data the records hold (the memory policy bounds it).
    size_t tensorBytes() const { return tensorBytes_; }
    // How many times a record was replaced (trimmed, given its lens): until the next, records are
    // only appended, and of the steps only the last changes.
    uint64_t replacements() const { return replacements_; }

private:
    void dropOldTensors(int currentStep);
    // Drops every tensor of the oldest records that still hold some, while `over()`.
    template <typename Over> void dropOldestWhile(Over over);
    void replaceRecord(size_t i, std::shared_ptr<StageRecord> r);

    MemoryPolicy policy_;
    std::vector<std::shared_ptr<const StageRecord>> records_;
    std::vector<StepInfo> steps_;
    std::vector<int32_t> positionTokens_, promptTokens_;
    std::string text_;
    size_t tensorBytes_ = 0;
    uint64_t replacements_ = 0;
    size_t olderBytes_ = 0;      // of tensorBytes_, what records of older steps hold
    size_t firstUntrimmed_ = 0;  // records before this index are already trimmed (older steps)
    size_t firstWithData_ = 0;   // records before this index hold no tensor data
    std::vector<bool> keptAttention_;  // by record index: the prefill's attention, kept whole
    size_t keptAttentionBytes_ = 0;
};

// The records of token step `step`. `records` are in step order, as a run and a replay capture
// them; panels look records up at every frame, so only that step's are read.
std::span<const std::shared_ptr<const StageRecord>> stepRecords(const std::vector<std::shared_ptr<const StageRecord>>& records, int step);
// The record of `stage` in `layer` at `step`, or nullptr (the latest if several).
const StageRecord* findRecord(const std::vector<std::shared_ptr<const StageRecord>>& records, int step, int layer, StageId stage);

// The step whose top tokens the Top logits panel shows while step `upTo` is shown: the latest at
// or before it that has them (from its logits stage on), or nullptr.
const StepInfo* stepWithTop(const std::vector<StepInfo>& steps, int upTo);

// The next token's logits: the last row of a logits stage's [seqLen, VocabSize] tensor (a sample
// stage's are that row already).
Tensor nextTokenLogits(const Tensor& logits);

// The sampled token id in the sample stage's message ("Sampled next token 123 ..."), or -1.
int32_t parseSampledToken(const std::string& message);
// A backward stage's gradient's L2 norm as its log line gives it ("|dScores| 0.0157" in the
// message: F32, before the trace rounded the values to bfloat16); "" when the line names none.
std::string gradientNorm(const std::string& message, const std::string& name);


}  // namespace llama::viewer
