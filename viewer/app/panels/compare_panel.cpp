// Two traces side by side (--trace A --compare B): where they first diverge, a heatmap of the
// largest difference per stage (rows) and layer (columns) at the shown step, and for the shown
// stage the element-wise |A - B| of the tensor that differs most, when both traces stored it.
// Layers are 0-based, as everywhere in the viewer.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "heatmap_view.h"
#include "panels.h"
#include "state/colour_map.h"

namespace llama::viewer {

namespace {

// 0 dark, then log10 of the difference from 1e-3 (dim) to 10 (bright); "absent" magenta,
// "differs" with equal numbers orange.
ImU32 cellColour(const StageDifference& s) {
    if (s.mismatch) return toImColour(kPosInfColour);
    if (s.difference == 0) return s.note.empty() ? IM_COL32(45, 45, 55, 255) : IM_COL32(230, 140, 40, 255);
    const float t = std::clamp((std::log10(std::min(s.difference, 1e30f)) + 3.0f) / 4.0f, 0.05f, 1.0f);
    return toImColour(rampColour(t, false));
}

void stageTable(PanelContext& c, const TraceComparison& cmp, int step) {
    const int nLayers = cmp.a->args.n_layers;
    const CompareGrid grid = compareGrid(cmp, step);
    const float font = ImGui::GetFontSize();
    float labelW = font * 9, cellW = font * 2.2f;
    const float cellH = font * 1.1f;
    // An exported picture keeps the text's size (a slide is read from the back of a room): the
    // cells narrow to fit the width, and the rows around the shown stage are those that fit.
    size_t firstRow = 0, endRow = grid.stages.size();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (c.exporting) {
        cellW = std::clamp((avail.x - labelW) / float(nLayers + 1), font * 1.2f, cellW);
        const size_t fit = size_t(std::max(2.0f, avail.y / cellH - 2));
        if (grid.stages.size() > fit) {
            size_t shownRow = 0;
            for (size_t r = 0; r < grid.stages.size(); ++r)
                if (c.current && grid.stages[r] == c.current->stage) shownRow = r;
            firstRow = std::min(shownRow > fit / 2 ? shownRow - fit / 2 : 0, grid.stages.size() - fit);
            endRow = firstRow + fit;
        }
    }
    c.view.compareLabelsBodySize = true;  // every label below is drawn in the body text's font
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    // Only the columns in sight of the scrolled region are drawn (a trace may have 1024 layers),
    // their labels thinned where narrowed cells would overlap them.
    const float scrollX = ImGui::GetScrollX();
    const int firstCol = std::clamp(int((scrollX - labelW) / cellW), 0, nLayers);
    const int endCol = std::clamp(int((scrollX + ImGui::GetWindowWidth() - labelW) / cellW) + 2, 0, nLayers + 1);
    const int every = std::max(1, int(std::ceil((ImGui::CalcTextSize(compareColumnLabel(nLayers).c_str()).x + 4) / cellW)));
    for (int col = firstCol; col < endCol; ++col)
        if (col % every == 0 || col == 0)
            dl->AddText(ImVec2(origin.x + labelW + float(col) * cellW + 2, origin.y), ImGui::GetColorU32(ImGuiCol_TextDisabled), compareColumnLabel(col).c_str());
    const ImU32 magenta = toImColour(kPosInfColour);
    for (size_t row = firstRow; row < endRow; ++row) {
        const float y = origin.y + cellH * float(row - firstRow + 1);
        const bool shown = c.current && c.current->stage == grid.stages[row];
        dl->AddText(ImVec2(origin.x, y), shown ? IM_COL32(255, 215, 90, 255) : ImGui::GetColorU32(ImGuiCol_Text),
                    std::string(stageInfo(grid.stages[row]).key).c_str());
        for (int col = firstCol; col < endCol; ++col) {
            const CompareGrid::Cell& cell = grid.cells[row][size_t(col)];
            if (!cell.pair && cell.only == CompareGrid::Only::Neither) continue;
            const ImVec2 a(origin.x + labelW + float(col) * cellW, y), b(a.x + cellW - 1, y + cellH - 1);
            dl->AddRectFilled(a, b, cell.pair ? cellColour(*cell.pair) : magenta);
            if (shown && c.current->layer == col - 1) dl->AddRect(a, b, IM_COL32(255, 215, 90, 255), 0, 0, 2);
            if (!hoveringRect(a, b)) continue;
            if (!cell.pair)
                ImGui::SetTooltip("%s, %s: only in %s (the other run skipped this layer or did not run this step)",
                                  std::string(stageInfo(grid.stages[row]).key).c_str(), layerLabel(col - 1).c_str(),
                                  cell.only == CompareGrid::Only::A ? "A" : "B");
            else
                ImGui::SetTooltip("%s, %s: %s%s%s", std::string(stageInfo(cell.pair->stage).key).c_str(), layerLabel(col - 1).c_str(),
                                  diffCell(*cell.pair).c_str(), cell.pair->tensor.empty() ? "" : (" in " + cell.pair->tensor).c_str(),
                                  cell.pair->note.empty() ? "" : (" (" + cell.pair->note + ")").c_str());
        }
    }
    ImGui::Dummy(ImVec2(labelW + cellW * float(nLayers + 1), cellH * float(endRow - firstRow + 1)));
    if (endRow - firstRow < grid.stages.size())
        ImGui::TextDisabled("stages %zu-%zu of %zu, around the shown one", firstRow + 1, endRow, grid.stages.size());
}

// |A - B| of the tensor of the shown stage that differs most, when both traces stored its values.
void elementDifference(PanelContext& c, const TraceComparison& cmp) {
    const StageDifference* pair = c.current ? cmp.pairOf(c.current->index) : nullptr;
    if (!pair) {
        ImGui::TextDisabled("The shown stage has no partner in B (a skipped layer, or a step B did not run).");
        return;
    }
    ImGui::Text("This stage in B: %s%s", diffCell(*pair).c_str(), pair->tensor.empty() ? "" : (" in " + pair->tensor).c_str());
    if (!pair->note.empty()) ImGui::TextDisabled("%s", pair->note.c_str());
    const TracedTensor* a = cmp.a->stages[pair->indexA].tensor(pair->tensor);
    const TracedTensor* b = cmp.b.stages[pair->indexB].tensor(pair->tensor);
    if (!a || !b || !a->hasValues() || !b->hasValues() || a->shape != b->shape || pair->difference == 0) {
        if (pair->difference != 0 && !pair->exact)
            ImGui::TextDisabled("Only summaries of %s were recorded: the difference above is a lower bound.", pair->tensor.c_str());
        return;
    }
    const std::string key = fmt::format("cmp/{}/{}", pair->indexA, pair->tensor);
    const PreparedSlice& prepared = preparedSlice(c.caches.slices, key, [&] {
        Tensor d(a->shape, DType::F32);
        for (int64_t i = 0; i < d.numel(); ++i) {
            const float x = a->values.floatAt(i), y = b->values.floatAt(i);
            d.mutableData<float>()[i] = x == y ? 0.0f : std::fabs(x - y);
        }
        Slice2D s = extractSlice(d, defaultSlice(d));
        const ColourScale scale = scaleFor(s.values);
        return PreparedSlice{std::move(s), scale};
    });
    const Slice2D& slice = prepared.slice;
    const ColourScale& scale = prepared.scale;
    ImGui::TextDisabled("|A - B| of %s %s (the last two axes; a 3-D tensor at index 0)", pair->tensor.c_str(), shapeToString(a->shape).c_str());
    drawLegend(scale, false, std::min(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 20));
    HeatmapHit hit = drawHeatmap(key, slice, scale, c.textures, c.view.heatmapZooms, ImGui::GetContentRegionAvail(),
                                 nullptr, HeatmapStyle{.maxCell = 24});
    valueTooltip(hit, slice, nullptr);
}
}  // namespace

void drawComparePanel(PanelContext& c) {
    const auto cmp = c.session.comparison();
    if (!cmp) {
        ImGui::TextWrapped("Open two traces to compare them: llama-viewer --trace A.trace --compare B.trace (record them with "
                           "llama-walkthrough --trace; `llama-walkthrough diff A.trace B.trace` prints the same comparison).");
        return;
    }
    auto describe = [](const TraceRun& r) {
        const std::string w = r.run.whatIf.describe();
        return fmt::format("temperature {}, what-if: {}", r.run.sampling.temperature, w.empty() ? "none" : w);
    };
    // A live run is compared as the trace it recorded in the temporary folder: named as the run.
    const std::string nameA = cmp->pathA == c.session.recordedTrace() ? "this live run (File > Save trace keeps it)" : displayPath(cmp->pathA);
    ImGui::Text("A: %s (%s)", nameA.c_str(), describe(*cmp->a).c_str());
    exportPngButton(c, "compare");
    ImGui::Text("B: %s (%s)", displayPath(cmp->pathB).c_str(), describe(cmp->b).c_str());
    if (cmp->diff.firstDivergence) {
        const StageDifference& f = cmp->diff.stages[*cmp->diff.firstDivergence];
        ImGui::TextColored(ImVec4(1, 0.8f, 0.3f, 1), "First divergence: step %d, %s, stage %d %s: %s", f.step,
                           layerLabel(f.layer).c_str(), stageInfo(f.stage).number,
                           std::string(stageInfo(f.stage).key).c_str(), f.note.empty() ? (f.tensor + " differs by " + diffCell(f)).c_str() : f.note.c_str());
    } else {
        ImGui::TextColored(ImVec4(0.4f, 1, 0.4f, 1), "No divergence: every paired stage is identical");
    }
    // What the runs' next-token choices rest on, as --no-kv-cache's summary says it.
    if (!c.view.kvCacheAgreement.empty() && cmp->pathB == c.view.kvCacheAgreementFor)
        ImGui::TextWrapped("KV cache check, every logit of every step (as llama-walkthrough --no-kv-cache): %s", c.view.kvCacheAgreement.c_str());
    if (const auto agree = agreementAt(cmp->diff, StageId::Logits)) ImGui::TextWrapped("%s", agreementText(*agree, StageId::Logits).c_str());
    const int step = c.current ? c.current->step : 0;
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("Largest |A - B| per stage and layer at step %d (%zu stages only in A, %zu only in B). Dark: 0; brighter: larger "
                        "(log scale, 0.001 to 10); magenta: a tensor or a stage one run lacks (a skipped layer); orange: other tokens or log lines.",
                        step, cmp->diff.unpairedA, cmp->diff.unpairedB);
    ImGui::PopTextWrapPos();
    // The table on the left, the shown stage's element-wise difference beside it.
    const float tableW = ImGui::GetFontSize() * (9 + 2.2f * float(cmp->a->args.n_layers + 1)) + ImGui::GetStyle().ScrollbarSize + 8;
    ImGui::BeginChild("compare-table", ImVec2(std::min(tableW, ImGui::GetContentRegionAvail().x * 0.6f), 0), false,
                      ImGuiWindowFlags_HorizontalScrollbar);
    stageTable(c, *cmp, step);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("compare-stage", ImVec2(0, 0));
    ImGui::PushTextWrapPos(0);  // its lines wrap in the space beside the table rather than run out of it
    elementDifference(c, *cmp);
    ImGui::PopTextWrapPos();
    ImGui::EndChild();
}

}  // namespace llama::viewer
