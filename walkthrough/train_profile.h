#pragma once
// `train --profile`: where a training step's time goes, stage by stage (forward and backward) and
// by kind of ml:: op, summed over the steps run and printed per step at the end.
#include <chrono>
#include <map>

#include "ml/op_profile.h"
#include "stages/stage_event.h"

namespace llama::cli {

// Times each stage as the wall time since the mark before it (the work that produced it): a
// stage's time is what the learner waits between two --step pauses. Marks of the Q/K/V tasks come
// from three concurrent threads, so the forward projections' split among them is approximate.
class StageClock : public StageObserver {
public:
    StageReads reads(StageId, int) const override { return StageReads::Handles; }
    void onStage(const StageEvent& event) override;
    // The next mark's time is counted from now (call it before each pass: the time between passes
    // belongs to no stage).
    void restart();
    // Prints the stage table and the op table for `steps` steps of `tokensPerStep` tokens.
    void print(int steps, int64_t tokensPerStep, double wallSeconds) const;

private:
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
    std::map<StageId, double> seconds_;
};

}  // namespace llama::cli
