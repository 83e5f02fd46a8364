#include "page/patch_page_data.h"

#include <fmt/format.h>

#include "state/patch_view.h"

namespace llama::page {

using nlohmann::json;

namespace {
// "output [11 256] min -1.67 max 1.74 mean 0.00151", or "" when the stage kept no summary.
std::string stageSummary(const TraceRun& run, const std::optional<int>& index) {
    if (!index) return "";
    const TracedStage& s = run.stages[size_t(*index)];
    if (s.tensors.empty() || !s.tensors[0].stats) return "";
    const TensorStats& st = *s.tensors[0].stats;
    return fmt::format("{} {} min {:.3g} max {:.3g} mean {:.3g}", s.tensors[0].name, shapeToString(s.tensors[0].shape), st.min, st.max, st.mean);
}
}  // namespace

json patchJson(const PatchTrace& t) {
    const PatchGrid& g = t.grid;
    json labels = json::array(), layers = json::array(), cells = json::array();
    for (int c = 0; c < g.columns; ++c) labels.push_back(viewer::patchColumnLabel(g, t.clean, t.corrupt, c));
    for (int l = 0; l < g.layers; ++l) {
        const auto a = viewer::patchStageIndex(g, t.clean, l), b = viewer::patchStageIndex(g, t.corrupt, l);
        layers.push_back({{"stage", a ? json(*a) : json(nullptr)}, {"clean", stageSummary(t.clean, a)}, {"corrupt", stageSummary(t.corrupt, b)}});
        json row = json::array();
        for (int c = 0; c < g.columns; ++c)
            row.push_back({{"recovered", g.recovered(l, c)}, {"text", viewer::patchCellText(g, t.clean, t.corrupt, viewer::PatchCell{l, c})}});
        cells.push_back(row);
    }
    return {{"site", g.site},
            {"stageKey", stageInfo(g.stage()).key},
            {"clean", t.clean.run.prompt},
            {"corrupt", t.corrupt.run.prompt},
            {"answer", g.answer.piece},
            {"wrong", g.wrong.piece},
            {"labels", labels},
            {"layers", layers},
            {"cells", cells}};
}

}  // namespace llama::page
