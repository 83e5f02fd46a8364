#pragma once
// The observer the viewer puts in front of the StepController: it clones every stage's tensors
// into a RunHistory on the engine thread, and the UI thread takes cheap snapshots of it (the
// records are shared pointers, so a snapshot copies pointers, not tensors).
#include <atomic>
#include <mutex>

#include "generate/logit_lens.h"
#include "state/run_history.h"

namespace llama::viewer {

struct HistorySnapshot {
    std::vector<std::shared_ptr<const StageRecord>> records;
    std::vector<StepInfo> steps;
    std::vector<int32_t> positionTokens, promptTokens;
    std::string text;
    uint64_t version = 0;
    uint64_t run = 0;  // the capture it came from (CaptureObserver::run): a new run, a new number
    uint64_t replacements = 0;  // the history's replacements when it was taken (RunHistory::replacements)
};

class CaptureObserver : public StageObserver {
public:
    // `topK` tokens are summarised at each logits stage with these settings' temperature, before
    // and (when the run penalizes repeats) after the repetition penalties; with `lens` (borrowed),
    // the logit lens at each block's output.
    CaptureObserver(SamplingSettings sampling, int topK, MemoryPolicy policy = {}, const LogitLens* lens = nullptr);

    void onStage(const StageEvent& event) override;
    // The history keeps its own row-major copies (Tensor::clone reads a view in place) and the
    // event's summaries, so the engine need not copy views first; the top tokens and the lens
    // read the logits and the blocks' outputs directly.
    StageReads reads(StageId stage, int) const override {
        return stage == StageId::Logits || stage == StageId::Sample || stage == StageId::FfnResidual ? StageReads::Values
                                                                                                       : StageReads::Statistics;
    }
    // A stage read back from a trace: its top tokens were recorded, its values are F32 whatever
    // the engine computed them in (`recorded` restores the dtypes and the recorded statistics).
    void onReplayedStage(const StageEvent& event, SampleTops tops, const std::vector<RecordedTensor>& recorded,
                         std::vector<std::vector<TokenProbability>> lens);
    void appendText(const std::string& piece);

    // The logit lens costs one more output projection per layer and position, as much again as a
    // small model's own arithmetic: it is computed as the run goes only while someone looks at it
    // (the Lens panel shown), and later on request for a step whose blocks' outputs are held.
    void wantLens(bool want) { lensWanted_ = want; }
    // Computes the lens of `step`'s blocks that lack it and still hold their output; false when
    // none could be computed (no lens in this run, or those outputs were dropped).
    bool computeLens(int step);

    uint64_t version() const { return version_; }
    // This capture's number, unique in the process (a new capture may reuse a freed one's address).
    uint64_t run() const { return run_; }
    // Refreshes `out` if the history changed since out.version.
    void snapshot(HistorySnapshot& out) const;

private:
    Sampler sampler_;  // only for topTokens; the generation samples with its own
    int topK_;
    int topStep_ = -1;  // the step whose top tokens the logits stage gave (engine thread only)
    const LogitLens* lens_;
    mutable std::mutex mutex_;
    RunHistory history_;
    std::atomic<uint64_t> version_{1};
    std::atomic<bool> lensWanted_{true};
    const uint64_t run_;
};

}  // namespace llama::viewer
