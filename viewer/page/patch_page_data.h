#pragma once
// A patch trace's page (`export-html` of `patch --trace`): the grid the page draws as a heatmap,
// each cell with its words and the index of its stage in the clean run (the page's stages), and
// per layer that stage's summary in both runs. Computed by the viewer's code (state/patch_view.h).
#include <nlohmann/json.hpp>

#include "trace/patch_trace.h"

namespace llama::page {

nlohmann::json patchJson(const PatchTrace& trace);

}  // namespace llama::page
