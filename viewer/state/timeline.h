#pragma once
// The stage timeline as the walkthrough walks it: token steps, each with the stages before the
// blocks, one group per transformer layer, and the stages after the blocks.
#include <memory>
#include <vector>

#include "state/run_history.h"

namespace llama::viewer {

struct TimelineStep {
    int step = 0;
    std::vector<int> before;               // record indices, layer -1 before the first block
    std::vector<std::vector<int>> layers;  // layers[L]: record indices of layer L
    std::vector<int> after;                // output and sampling
    // A batch's step is one ubatch's forward pass (engine/batch/batch_decode.cpp): the record of its
    // ubatch stage and the ubatch's number in the run, counted from 0 as the Batch panel counts; -1 without one.
    int ubatchRecord = -1, ubatchNumber = -1;
};

std::vector<TimelineStep> buildTimeline(const std::vector<std::shared_ptr<const StageRecord>>& records);
// Adds records[from...] to a timeline built from records[0, from): while a model computes, the
// timeline grows with the run instead of being rebuilt from every record at every frame.
void extendTimeline(std::vector<TimelineStep>& steps, const std::vector<std::shared_ptr<const StageRecord>>& records, size_t from);

}  // namespace llama::viewer
