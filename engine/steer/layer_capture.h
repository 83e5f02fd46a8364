#pragma once
// Watches a forward pass and keeps one stage's tensor per layer as F32 rows (observers are asked
// for values, so the tensor arrives contiguous): the residual stream after each block
// (ffn_residual's output) for control vectors and activation patching.
#include <string>
#include <vector>

#include "stages/stage_event.h"

namespace llama {

class LayerCapture : public StageObserver {
public:
    // `stage` and the name of its tensor to keep ("output" of FfnResidual).
    LayerCapture(StageId stage, std::string tensor, int nLayers);
    StageReads reads(StageId stage, int) const override;
    void onStage(const StageEvent& event) override;

    // Layer -> [positions * dim] F32 of the last pass seen; empty until the layer ran.
    const std::vector<std::vector<float>>& rows() const { return rows_; }
    int dim() const { return dim_; }
    // One position's row of one layer.
    std::vector<float> row(int layer, int position) const;

private:
    StageId stage_;
    std::string tensor_;
    std::vector<std::vector<float>> rows_;
    int dim_ = 0;
};

}  // namespace llama
