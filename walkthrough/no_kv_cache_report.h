#pragma once
// What --no-kv-cache reports (the switches themselves: options/run_options.h):
// the run's timing next to the same run with the cache, and whether their logits agree.
#include <string>
#include <vector>

#include "session/session.h"

namespace llama::cli {

// Keeps the logits of every step's last position (stage 20), to compare two runs.
class StepLogits : public StageObserver {
public:
    void onStage(const StageEvent& event) override;
    StageReads reads(StageId stage, int) const override { return stage == StageId::Sample ? StageReads::Values : StageReads::Shapes; }
    const std::vector<Tensor>& logits() const { return logits_; }

private:
    std::vector<Tensor> logits_;
};

// The largest |a - b| over the steps both runs have, and whether they have the same steps.
struct LogitsComparison {
    bool sameSteps = true;
    float maxDifference = 0;
    int worstStep = 0;
};
LogitsComparison compareStepLogits(const std::vector<Tensor>& a, const std::vector<Tensor>& b);

// After a --no-kv-cache run: runs the same generation with the cache (observed only by a
// StepLogits) and prints both decode timings and whether the logits are equal.
void reportKvCacheExperiment(Session& session, const GenerationResult& without, const StepLogits& withoutLogits);

}  // namespace llama::cli
