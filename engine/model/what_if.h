#pragma once
// The what-if switches: experiments that change the computation on purpose, so a learner can see
// what each piece does by taking it away (--no-mask, --no-kv-cache, --rope-theta X, --no-rope,
// --ablate-head LAYER:HEAD, --skip-layer L, --compute-dtype bf16|f32, --control-vector FILE[:SCALE]).
// A default WhatIf is the model itself; every switch
// is recorded in the debug log, the trace and the viewer so an experiment is never mistaken for
// the model.
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/activation_patch.h"
#include "model/steering.h"
#include "tensor/dtype.h"

namespace llama {

struct WhatIf {
    bool noMask = false;                       // prefill without the causal mask: tokens see the future
    bool noKvCache = false;                    // every decode step recomputes the whole sequence from position 0
    std::optional<double> ropeTheta;           // RoPE angles from another base frequency
    bool noRope = false;                       // queries and keys are not rotated: no position information
    std::set<std::pair<int, int>> ablateHeads; // 0-based {layer, head}: that head's attention output is zeroed
    std::set<int> skipLayers;                  // 0-based layers the residual stream bypasses
    // Activations, scores, softmax and logits in this dtype (BF16 or F32) instead of the one the
    // model's weights choose (computeDTypeOf).
    std::optional<DType> computeDType;
    // Control vectors added to blocks' outputs (model/steering.h); shared, as they are read once.
    std::shared_ptr<const Steering> steering;
    // One activation taken from another run (the patch command; model/activation_patch.h).
    std::shared_ptr<const ActivationPatch> patch;

    bool any() const {
        return noMask || noKvCache || ropeTheta || noRope || !ablateHeads.empty() || !skipLayers.empty() || computeDType || steering || patch;
    }
    const ActivationPatch* patchAt(int layer, ActivationPatch::Site site) const {
        return patch && patch->layer == layer && patch->site == site ? patch.get() : nullptr;
    }
    const Tensor* controlVectorFor(int layer) const { return steering ? steering->directionFor(layer) : nullptr; }
    bool skipsLayer(int layer) const { return skipLayers.count(layer) > 0; }
    std::vector<int> headsAblatedIn(int layer) const;
    // The switches as they are typed, layers and heads 1-based as the log counts ("" for none).
    std::string describe() const;

    // Throws std::invalid_argument when a layer, head or theta does not fit the model.
    void validate(int nLayers, int nHeads) const;
    // Throws std::invalid_argument when any switch is on: the one place that says why a batch
    // (and speculation, which runs on the batch path) takes no what-if. `run` names the run.
    void requireOneSequence(const std::string& run) const;
};

// "bf16" or "f32" (any case) -> the dtype; throws std::invalid_argument naming the choices.
DType parseComputeDType(const std::string& text);
// The inverse: "bf16", "f32".
std::string computeDTypeWord(DType dtype);

}  // namespace llama
