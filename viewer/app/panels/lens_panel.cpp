// The logit lens: what each layer's residual stream would predict at each position (the final
// norm and output projection applied early), as a grid of layers by positions with the top
// token's probability as colour. Hover a cell for its top tokens.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>

#include "heatmap_view.h"
#include "panels.h"
#include "state/colour_map.h"
#include "state/lens_grid.h"

namespace llama::viewer {

namespace {
ImU32 toImColour(Rgb c) { return IM_COL32(c.r, c.g, c.b, 255); }

void cellTooltip(PanelContext& c, const LensGrid& g, size_t row, int col) {
    ImGui::BeginTooltip();
    ImGui::Text("%s, position %s", layerLabel(g.layers[row]).c_str(), c.positionLabel(g.startPos + col).c_str());
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
    ImGui::Text("Step %d: what the model would say after each layer (final RMSNorm + output projection on the residual stream)", step);
    exportPngButton(c, "lens");
    ImGui::TextDisabled("colour: probability of the top token (temperature 1); the last row is the model's own prediction");

    const float font = ImGui::GetFontSize();
    const float labelW = font * 4.5f, cellW = font * 4.6f, cellH = font * 1.6f;
    ImGui::BeginChild("lens-grid", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    // Column heads: the input token at each position.
    for (int col = 0; col < g.positions; ++col) {
        const std::string label = fitText(c.positionLabel(g.startPos + col), cellW - 4);
        dl->AddText(ImVec2(origin.x + labelW + float(col) * cellW + 2, origin.y), ImGui::GetColorU32(ImGuiCol_TextDisabled), label.c_str());
    }
    const float top = origin.y + cellH;
    for (size_t row = 0; row < g.layers.size(); ++row) {
        const float y = top + float(row) * cellH;
        dl->AddText(ImVec2(origin.x, y + (cellH - font) / 2), ImGui::GetColorU32(ImGuiCol_Text), layerLabel(g.layers[row]).c_str());
        for (int col = 0; col < g.positions; ++col) {
            const auto& tokens = g.cells[row][size_t(col)];
            if (tokens.empty()) continue;
            const float p = tokens.front().probability;
            const ImVec2 a(origin.x + labelW + float(col) * cellW, y), b(a.x + cellW - 2, y + cellH - 2);
            dl->AddRectFilled(a, b, toImColour(rampColour(std::clamp(p, 0.0f, 1.0f), false)));
            const std::string piece = fitText(c.piece(tokens.front().id), cellW - 6);
            const ImU32 text = p > 0.55f ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255);
            dl->AddText(ImVec2(a.x + 3, y + (cellH - font) / 2), text, piece.c_str());
            if (hoveringRect(a, b)) cellTooltip(c, g, row, col);
        }
    }
    ImGui::Dummy(ImVec2(labelW + float(g.positions) * cellW, cellH * float(g.layers.size() + 1)));
    ImGui::Spacing();
    drawLegend(ColourScale{0, 1, false}, false, std::min(ImGui::GetContentRegionAvail().x, font * 20));
    ImGui::EndChild();
}

}  // namespace llama::viewer
