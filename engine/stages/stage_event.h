#pragma once
// What the engine tells its observers after each stage: which stage, where in the run,
// the log line(s) in the walkthrough's wording, and the tensors the stage produced.
// Tensors are borrowed for the duration of the call; an observer that keeps one clones it.
#include <string>
#include <vector>

#include "tensor/tensor.h"
#include "stages/stage_catalog.h"

namespace llama {

struct StageTensor {
    std::string name;
    const Tensor* tensor;
};

struct StageEvent {
    StageId stage;
    int layer = -1;     // 0-based transformer layer, -1 outside the blocks
    int step = 0;       // token step: 0 is the prefill, then one per generated token
    int startPos = 0;
    std::string message;  // one or more log lines, '\n'-separated
    std::vector<StageTensor> tensors;

    const StageInfo& info() const { return stageInfo(stage); }
};

class StageObserver {
public:
    virtual ~StageObserver() = default;
    // Called on the engine's thread, in order. Blocking here holds the engine at this stage.
    virtual void onStage(const StageEvent& event) = 0;
};

// Thrown from an observer (or by the engine when a stop was requested) to end a generation
// cleanly from any stage.
struct GenerationStopped {};

}  // namespace llama
