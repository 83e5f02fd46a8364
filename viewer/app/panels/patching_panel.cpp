// A patch trace (`patch --trace`): the share of the logit difference recovered per layer (rows)
// and position or head (columns), on a blue-white-red scale from -1 to 1 with its legend; a
// hovered cell gives its numbers, a clicked one shows its stage (the patched site at that layer)
// in the clean run (the replay: every other panel follows) and beside it in the corrupted one.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "heatmap_view.h"
#include "panels.h"
#include "state/colour_map.h"
#include "state/patch_view.h"

namespace llama::viewer {

namespace {
constexpr ColourScale kRecoveredScale{-1, 1, true};

void legend(float font) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float w = font * 12, h = font * 0.8f;
    for (int i = 0; i < 64; ++i)
        dl->AddRectFilled(ImVec2(o.x + w * float(i) / 64, o.y), ImVec2(o.x + w * float(i + 1) / 64 + 1, o.y + h),
                          toImColour(colourFor(-1 + 2 * float(i) / 63, kRecoveredScale)));
    ImGui::Dummy(ImVec2(w, h));
    ImGui::SameLine();
    ImGui::TextDisabled("-1   0 (corrupted)   1 (clean): share of the logit difference recovered");
}

// One run's row at the chosen cell as a strip, on the scale both rows share.
void rowStrip(const char* name, const std::vector<float>& row, const ColourScale& scale, float font) {
    ImGui::Text("%s", name);
    ImGui::SameLine(font * 7);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float w = std::max(font * 10, ImGui::GetContentRegionAvail().x - font), h = font;
    for (size_t i = 0; i < row.size(); ++i)
        dl->AddRectFilled(ImVec2(o.x + w * float(i) / float(row.size()), o.y), ImVec2(o.x + w * float(i + 1) / float(row.size()) + 0.5f, o.y + h),
                          toImColour(colourFor(row[i], scale)));
    ImGui::Dummy(ImVec2(w, h));
}

// The chosen cell's stage in both runs: the rows the patch moved, when the trace kept them, and
// each run's summary of the stage's tensor.
void cellStage(PanelContext& c, const PatchGrid& g, const TraceRun& clean, const TraceRun& corrupt, PatchCell cell, float font) {
    ImGui::TextWrapped("%s", patchCellText(g, clean, corrupt, cell).c_str());
    const auto a = patchStageIndex(g, clean, cell.layer), b = patchStageIndex(g, corrupt, cell.layer);
    if (!a || !b) {
        ImGui::TextDisabled("The runs did not record stage %s at this layer.", std::string(stageInfo(g.stage()).key).c_str());
        return;
    }
    const TracedStage& sa = clean.stages[size_t(*a)];
    ImGui::TextWrapped("Stage %d %s, layer %d, in both runs (the other panels show the clean run's; Compare pairs them):", sa.info().number,
                std::string(sa.info().title).c_str(), cell.layer + 1);
    for (const auto& [name, run, index] : {std::tuple{"clean", &clean, *a}, std::tuple{"corrupted", &corrupt, *b}}) {
        const TracedStage& s = run->stages[size_t(index)];
        if (s.tensors.empty() || !s.tensors[0].stats) continue;
        const TensorStats& st = *s.tensors[0].stats;
        ImGui::BulletText("%s run: %s %s min %.3g max %.3g mean %.3g", name, s.tensors[0].name.c_str(), shapeToString(s.tensors[0].shape).c_str(),
                          st.min, st.max, st.mean);
    }
    const auto ra = patchedRow(g, clean, cell, true), rb = patchedRow(g, corrupt, cell, false);
    if (ra.empty() || rb.empty() || ra.size() != rb.size()) {
        if (g.heads()) ImGui::TextDisabled("A head's cell patched that head's output at every position; the trace keeps its summary only.");
        else ImGui::TextDisabled("The trace kept this stage's summary, not its rows (the residual stream's rows are kept: --site block).");
    } else {
        std::vector<float> both(ra);
        both.insert(both.end(), rb.begin(), rb.end());
        const ColourScale scale = scaleFor(both);
        double d2 = 0, n2 = 0;
        for (size_t i = 0; i < ra.size(); ++i) d2 += double(ra[i] - rb[i]) * (ra[i] - rb[i]), n2 += double(rb[i]) * rb[i];
        ImGui::Text("The row patched (position %d of the clean run into position %d of the corrupted one), %zu values:",
                    g.cleanPosition[size_t(cell.column)], g.corruptPosition[size_t(cell.column)], ra.size());
        rowStrip("clean", ra, scale, font);
        rowStrip("corrupted", rb, scale, font);
        ImGui::Text("|clean - corrupted| = %.3f, against |corrupted| = %.3f", std::sqrt(d2), std::sqrt(n2));
    }
    if (!c.exporting && ImGui::Button("Open in Compare")) c.showPanel(Panel::Compare);
}
}  // namespace

void drawPatchingPanel(PanelContext& c) {
    const auto grid = c.session.patchGrid();
    const auto cmp = c.session.comparison();
    if (!grid || !cmp) {
        ImGui::TextWrapped("Open a patch trace (llama-walkthrough patch ... --trace FILE) with File > Open trace or --trace.");
        return;
    }
    const PatchGrid& g = *grid;
    const TraceRun &clean = *cmp->a, &corrupt = cmp->b;
    ImGui::TextWrapped("Activation patching: the %s of one layer %s from the clean run \"%s\" into the corrupted run \"%s\". Answer \"%s\" "
                       "against \"%s\".",
                       g.site == "block" ? "block output" : g.site == "attention" ? "attention output" : "output of one head",
                       g.heads() ? "(at every position)" : "at one position", clean.run.prompt.c_str(), corrupt.run.prompt.c_str(),
                       g.answer.piece.c_str(), g.wrong.piece.c_str());
    const float font = ImGui::GetFontSize();
    legend(font);
    const float labelW = font * 4, cellW = std::clamp((ImGui::GetContentRegionAvail().x - labelW) / float(g.columns), font * 1.5f, font * 6),
                cellH = font * 1.3f, headH = font * 1.2f;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    for (int col = 0; col < g.columns; ++col) {
        const std::string label = fitText(patchColumnLabel(g, clean, corrupt, col), cellW - 2);
        dl->AddText(ImVec2(o.x + labelW + float(col) * cellW + 1, o.y), ImGui::GetColorU32(ImGuiCol_TextDisabled), label.c_str());
    }
    for (int layer = 0; layer < g.layers; ++layer) {
        const float y = o.y + headH + cellH * float(layer);
        dl->AddText(ImVec2(o.x, y), ImGui::GetColorU32(ImGuiCol_Text), fmt::format("layer {}", layer + 1).c_str());
        for (int col = 0; col < g.columns; ++col) {
            const PatchCell cell{layer, col};
            const float v = float(g.recovered(layer, col));
            const ImVec2 a(o.x + labelW + float(col) * cellW, y), b(a.x + cellW - 1, y + cellH - 1);
            dl->AddRectFilled(a, b, toImColour(colourFor(std::clamp(v, -1.0f, 1.0f), kRecoveredScale)));
            const std::string text = fmt::format("{:.2f}", v);
            if (ImGui::CalcTextSize(text.c_str()).x < cellW - 2)
                dl->AddText(ImVec2(a.x + 2, a.y + 1), std::fabs(v) > 0.6f ? IM_COL32(255, 255, 255, 255) : IM_COL32(20, 20, 20, 255), text.c_str());
            if (c.view.patchCell == cell) dl->AddRect(a, b, IM_COL32(255, 215, 90, 255), 0, 0, 3);
            if (hoveringRect(a, b)) {
                ImGui::SetTooltip("%s\nclick: this stage in both runs", patchCellText(g, clean, corrupt, cell).c_str());
                if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) selectPatchCell(c.view, g, clean, cell);
            }
        }
    }
    ImGui::Dummy(ImVec2(labelW + cellW * float(g.columns), headH + cellH * float(g.layers)));
    if (!c.exporting) exportPngButton(c, "patching");
    ImGui::Separator();
    if (c.view.patchCell) cellStage(c, g, clean, corrupt, *c.view.patchCell, font);
    else ImGui::TextDisabled("Click a cell to see its stage in both runs.");
}

}  // namespace llama::viewer
