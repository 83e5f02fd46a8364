#pragma once
// What --no-kv-cache's run is checked with: the logits of every step kept in full, and the same
// generation with the cache compared with it value by value. The CLI prints the verdict after
// the timings; the viewer shows it beside the two runs in its Compare panel.
#include <string>
#include <vector>

#include "stages/stage_event.h"

namespace llama {

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

// The verdict on a run without the KV cache (`without`) against the same run with it: the steps,
// the generated tokens and every logit compared ("Logits of all 4 steps are equal: ...").
std::string kvCacheAgreement(const std::vector<Tensor>& without, const std::vector<Tensor>& with, bool sameTokens);

}  // namespace llama
