#include "state/lens_grid.h"

namespace llama::viewer {

LensGrid lensGrid(const std::vector<std::shared_ptr<const StageRecord>>& records, int step) {
    LensGrid g;
    g.step = step;
    for (const auto& r : stepRecords(records, step)) {
        if (r->stage != StageId::FfnResidual || r->lens.empty()) continue;
        if (g.empty()) g.startPos = r->startPos, g.positions = int(r->lens.size());
        if (int(r->lens.size()) != g.positions) continue;  // cannot happen within one step
        g.layers.push_back(r->layer);
        g.cells.push_back(r->lens);
    }
    return g;
}

}  // namespace llama::viewer
