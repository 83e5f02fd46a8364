// The causal mask of the prefill: row i (a query position) may look at columns up to i.
// Drawn cell by cell with its value written in, because the point is to read 0 and -inf.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "heatmap_view.h"
#include "panels.h"

namespace llama::viewer {

namespace {
// The mask of the shown step, else the latest step that had one (decode steps have none).
const StageRecord* maskRecord(const PanelContext& c) {
    const StageRecord* found = nullptr;
    for (const auto& r : c.snap.records) {
        if (r->stage != StageId::Mask || !r->find("mask")) continue;
        if (c.current && r->step > c.current->step) break;
        found = r.get();
    }
    return found;
}
}  // namespace

void drawMaskPanel(PanelContext& c) {
    const StageRecord* r = maskRecord(c);
    if (!r) {
        ImGui::TextWrapped("No mask captured yet. The prefill builds one at stage 4 (mask) when the prompt has more than one token; "
                           "decode steps feed one token and need none (it may look at every cached position).");
        return;
    }
    const CapturedTensor& m = *r->find("mask");
    ImGui::Text("mask %s %s (step %d, startPos %d)", shapeToString(m.shape).c_str(), dtypeName(m.dtype), r->step, r->startPos);
    exportPngButton(c, "mask");
    ImGui::TextWrapped("Added to the scores before the softmax: 0 keeps a score, -inf makes its probability exactly 0. "
                       "Row = query position, column = key position; a token may attend to itself and to earlier tokens only.");
    if (!m.data) {
        ImGui::TextDisabled("(only a summary was kept)");
        return;
    }
    const Tensor& t = *m.data;
    const int rows = int(t.dim(0)), cols = int(t.dim(1));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float font = ImGui::GetFontSize();
    float labelW = 0;
    for (int i = 0; i < std::max(rows, cols); ++i) labelW = std::max(labelW, ImGui::CalcTextSize(c.positionLabel(i).c_str()).x);
    labelW = std::min(labelW, font * 10) + font * 0.5f;
    ImVec2 avail = ImGui::GetContentRegionAvail();
    float cell = std::clamp(std::min((avail.x - labelW) / cols, (avail.y - labelW) / rows), 4.0f, font * 3.0f);
    ImVec2 o = ImGui::GetCursorScreenPos();
    ImVec2 grid(o.x + labelW, o.y + labelW);
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    // Long prompts: every k-th label, so none overlap (hover names any cell's tokens).
    const int every = std::max(1, int(std::ceil(font / cell)));
    for (int i = 0; i < rows; i += every) {
        std::string l = c.positionLabel(r->startPos + i);
        dl->AddText(ImVec2(grid.x - font * 0.3f - ImGui::CalcTextSize(l.c_str()).x, grid.y + cell * i + (cell - font) / 2), text, l.c_str());
    }
    for (int j = 0; j < cols; j += every) addVerticalText(dl, ImVec2(grid.x + cell * j + (cell - font) / 2, grid.y - font * 0.3f), text, c.positionLabel(j));
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            bool masked = std::isinf(t.floatAt(int64_t(i) * cols + j));
            ImVec2 a(grid.x + cell * j, grid.y + cell * i), b(a.x + cell - 1, a.y + cell - 1);
            dl->AddRectFilled(a, b, masked ? IM_COL32(40, 40, 48, 255) : IM_COL32(235, 235, 225, 255));
            if (cell >= font * 1.6f) {
                const char* s = masked ? "-\xe2\x88\x9e" : "0";  // −∞
                ImVec2 sz = ImGui::CalcTextSize(s);
                dl->AddText(ImVec2(a.x + (cell - sz.x) / 2, a.y + (cell - sz.y) / 2), masked ? IM_COL32(200, 200, 210, 255) : IM_COL32(20, 20, 20, 255), s);
            }
        }
    ImGui::Dummy(ImVec2(labelW + cell * cols, labelW + cell * rows));
    if (hoveringRect(grid, ImVec2(grid.x + cell * cols, grid.y + cell * rows))) {
        ImVec2 p = ImGui::GetMousePos();
        int i = std::clamp(int((p.y - grid.y) / cell), 0, rows - 1), j = std::clamp(int((p.x - grid.x) / cell), 0, cols - 1);
        bool masked = std::isinf(t.floatAt(int64_t(i) * cols + j));
        ImGui::SetTooltip("query %s\nkey %s\nmask %s", c.positionLabel(r->startPos + i).c_str(), c.positionLabel(j).c_str(), masked ? "-inf" : "0");
    }
}

}  // namespace llama::viewer
