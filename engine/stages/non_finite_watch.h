#pragma once
// Where a run's numbers stopped being numbers. Attached to a pass, it stops the pass at the first
// stage that produced a NaN or an infinity, naming the step, the stage (key, number, layer), the
// tensor and the element. -infinity is a value only where a mask means "not seen" (the stages that
// build or add a mask); anywhere else it is an overflow like +infinity. Backward stages are stages
// like any other, so a training step watched by it stops at the first gradient that went non-finite.
//
// It reads every value of every stage (several times a pass's arithmetic on the bundled model), so
// a run does not carry it: the run checks its logits, and a pass whose logits are not finite is run
// again watched by it alone (model/finite_logits.h).
#include <stdexcept>

#include "stages/stage_event.h"

namespace llama {

// What NonFiniteWatch throws: the message names the step, the stage and the tensor.
struct NonFiniteValues : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class NonFiniteWatch : public StageObserver {
public:
    StageReads reads(StageId, int) const override { return StageReads::Values; }
    // Throws NonFiniteValues at the first recorded tensor holding a non-finite value.
    void onStage(const StageEvent& event) override;
};

}  // namespace llama
