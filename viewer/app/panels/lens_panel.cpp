// The logit lens: what each layer's residual stream would predict at each position (the final
// norm and output projection applied early), as a grid of layers by positions with the top
// token's probability as colour and the token written in once zoomed in. Hover a cell for its top tokens.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "heatmap_view.h"
#include "panels.h"
#include "state/colour_map.h"
#include "state/lens_grid.h"

namespace llama::viewer {

namespace {
constexpr Rgb kNoLensColour{60, 60, 60};

void cellTooltip(PanelContext& c, const LensGrid& g, size_t row, int col) {
    ImGui::BeginTooltip();
    ImGui::Text("%s, position %s", layerLabel(g.layers[row]).c_str(), c.positionLabel(g.startPos + col).c_str());
    if (g.cells[row][size_t(col)].empty()) ImGui::TextDisabled("no lens at this position");
    for (const auto& t : g.cells[row][size_t(col)]) ImGui::Text("%6.3f  %s", double(t.probability), c.piece(t.id).c_str());
    ImGui::EndTooltip();
}
}  // namespace

void drawLensPanel(PanelContext& c) {
    const int step = c.current ? c.current->step : 0;
    const LensGrid g = lensGrid(c.snap.records, step);
    if (g.empty()) {
        ImGui::TextWrapped("No logit lens for step %d yet: while this panel is shown it appears as each block finishes (stage 18, "
                           "ffn_residual), and for an earlier step whose blocks' outputs are still held. A dry run has no values, a "
                           "run with \"logit lens\" unticked computes none, and a trace recorded with --trace-lens-top-k 0 has none.",
                           step);
        return;
    }
    ImGui::TextWrapped("Step %d: what the model would say after each layer (final RMSNorm + output projection on the residual stream)", step);
    exportPngButton(c, "lens");
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("colour: the top token's probability; last row: the model's own prediction");
    ImGui::PopTextWrapPos();
    const float font = ImGui::GetFontSize();
    drawLegend(ColourScale{0, 1, false}, false, std::min(ImGui::GetContentRegionAvail().x, font * 20));

    // Layers by positions, drawn as the other heatmaps are: the cells hold their top token once
    // wide enough (zoom and pan for long prompts), labels are thinned, only the cells in sight are drawn.
    Slice2D s{int64_t(g.layers.size()), g.positions, {}};
    s.values.reserve(size_t(s.rows * s.cols));
    uint64_t content = 1469598103934665603ull;  // FNV-1a of the shown tokens and probabilities: the texture's key
    for (const auto& row : g.cells)
        for (const auto& tokens : row) {
            const float p = tokens.empty() ? NAN : tokens.front().probability;
            s.values.push_back(p);
            uint32_t bits;
            std::memcpy(&bits, &p, 4);
            content = (content ^ bits ^ (uint64_t(uint32_t(tokens.empty() ? -1 : tokens.front().id)) << 32)) * 1099511628211ull;
        }
    HeatmapLabels labels{"layer", "position", {}, {}};
    for (int layer : g.layers) labels.rows.push_back(layerLabel(layer));
    for (int col = 0; col < g.positions; ++col) labels.cols.push_back(c.positionLabel(g.startPos + col));
    HeatmapStyle style;
    style.maxCell = 22;  // the rows' height, reached below: the layers never zoom, the positions do
    style.maxCellWidth = 80;  // room for a token
    style.startCellWidth = 64;  // opened zoomed in far enough to read them (wheel out or double-click: every position)
    style.squareCells = false;
    style.colour = [](float p) { return std::isnan(p) ? kNoLensColour : rampColour(std::clamp(p, 0.0f, 1.0f), false); };
    style.cellText = [&](int row, int col) {
        const auto& tokens = g.cells[size_t(row)][size_t(col)];
        return tokens.empty() ? std::string() : c.piece(tokens.front().id);
    };
    // Rows tall enough for their tokens even when the header leaves little room (UI scale 2 on a
    // laptop): the panel scrolls instead.
    ImVec2 room = ImGui::GetContentRegionAvail();
    room.y = std::max(room.y, font * (8 + 1.4f * float(s.rows)));
    HeatmapHit hit = drawHeatmap(fmt::format("lens/{}/{:x}", step, content), s, ColourScale{0, 1, false}, c.textures, c.view.heatmapZooms, room, &labels, style);
    if (hit.hovered) cellTooltip(c, g, size_t(hit.row), hit.col);
}

}  // namespace llama::viewer
