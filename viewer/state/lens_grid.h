#pragma once
// The logit lens panel's data: for one token step, a grid of layers (rows) by positions
// (columns), each cell the tokens that layer's residual stream would predict there.
#include <memory>
#include <vector>

#include "state/run_history.h"

namespace llama::viewer {

struct LensGrid {
    int step = 0, startPos = 0;
    std::vector<int> layers;  // 0-based, one per row, in order
    int positions = 0;        // columns: positions startPos .. startPos + positions - 1
    std::vector<std::vector<std::vector<TokenProbability>>> cells;  // [row][column]: most likely first

    bool empty() const { return layers.empty(); }
};

// The lens of `step` from its ffn_residual records (empty when none carries a lens: a dry run,
// a trace recorded without it, or no block finished yet).
LensGrid lensGrid(const std::vector<std::shared_ptr<const StageRecord>>& records, int step);

}  // namespace llama::viewer
