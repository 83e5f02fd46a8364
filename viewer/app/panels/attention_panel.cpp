// Attention per layer and head: the probabilities after the softmax with tokens on both axes.
// All heads as thumbnails (click one to enlarge); a clicked cell is explained step by step from
// the xq and keys the `transposes` stage captured. In decode steps there is one query row over
// every cached position.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "state/attention_explain.h"
#include "heatmap_view.h"
#include "panels.h"

namespace llama::viewer {

namespace {
struct HeadSlices {
    const StageRecord* record = nullptr;
    const Tensor* scores = nullptr;  // [N_Heads, seqLen, positions]
};

HeadSlices findScores(const PanelContext& c, int step, int layer) {
    StageId stage = c.view.showMaskedScores ? StageId::ScoresMask : StageId::ScoresSoftmax;
    HeadSlices h;
    h.record = findRecord(c.snap.records, step, layer, stage);
    if (h.record)
        if (const CapturedTensor* t = h.record->find("scores"); t && t->data) h.scores = &*t->data;
    return h;
}

HeatmapLabels tokenLabels(const PanelContext& c, const StageRecord& r, int cols) {
    HeatmapLabels l{"query position", "key position", {}, {}};
    for (int i = 0; i < r.seqLen; ++i) l.rows.push_back(c.positionLabel(r.startPos + i));
    for (int j = 0; j < cols; ++j) l.cols.push_back(c.positionLabel(j));
    return l;
}

void explainCell(PanelContext& c, const StageRecord& scoresRecord, const Tensor& scores, int head) {
    if (!c.view.cell) {
        ImGui::TextWrapped("Click a cell to see how its probability is computed.");
        return;
    }
    const int row = c.view.cell->row, col = c.view.cell->col;
    const StageRecord* tr = findRecord(c.snap.records, scoresRecord.step, scoresRecord.layer, StageId::Transposes);
    const CapturedTensor* xq = tr ? tr->find("xq") : nullptr;
    const CapturedTensor* keys = tr ? tr->find("keys") : nullptr;
    if (!xq || !keys || !xq->data || !keys->data) {
        ImGui::TextWrapped("The xq and keys of this layer are not available (a trace records them only with --trace-presoftmax; older token steps keep "
                           "only small tensors), so this cell cannot be recomputed.");
        return;
    }
    const StageRecord* mr = findRecord(c.snap.records, scoresRecord.step, -1, StageId::Mask);
    const CapturedTensor* mask = mr ? mr->find("mask") : nullptr;
    CellExplanation e;
    try {
        e = explainAttentionCell(*xq->data, *keys->data, mask && mask->data ? &*mask->data : nullptr, head, row, col);
    } catch (const std::exception& ex) {
        ImGui::TextWrapped("%s", ex.what());
        return;
    }
    const int P = int(scores.dim(2));
    ImGui::Text("%s, query %s", headLabel(head).c_str(), c.positionLabel(scoresRecord.startPos + row).c_str());
    ImGui::Text("      key %s", c.positionLabel(col).c_str());
    ImGui::Separator();
    ImGui::Text("1. q . k = sum of %d products", e.headDim);
    ImGui::Text("        = %.5g", e.dot);
    if (const StageRecord* mm = findRecord(c.snap.records, scoresRecord.step, scoresRecord.layer, StageId::ScoresMatMul))
        if (const CapturedTensor* t = mm->find("xqMatMulKeys"); t && t->data)
            ImGui::TextDisabled("   engine (bf16): %.5g", t->data->floatAt((int64_t(head) * scores.dim(1) + row) * P + col));
    ImGui::Text("2. / sqrt(HeadDim) = / %.5g", double(e.scale));
    ImGui::Text("        = %.5g", e.scaled);
    ImGui::Text("3. + mask %s", std::isinf(e.mask) ? "-inf (a later position)" : "0");
    ImGui::Text("        = %s", std::isinf(e.score) ? "-inf" : fmt::format("{:.5g}", e.score).c_str());
    ImGui::Text("4. softmax over the row (%d visible of %d):", e.visible, P);
    ImGui::Text("   exp(score - max) / sum exp(row - max)");
    ImGui::Text("   max = %.5g, sum = %.5g", e.rowMax, e.sumExp);
    ImGui::Text("        = %.5f", e.probability);
    // The view's own value: the score of step 3 before the softmax, or the probability after it.
    ImGui::TextDisabled("   %s: %.5g", capturedCellLabel(c.view.showMaskedScores).c_str(),
                        double(scores.floatAt((int64_t(head) * scores.dim(1) + row) * P + col)));
}

// The layer and the values shown: sliders and radio buttons, or in an exported picture a line
// that says what they chose.
void drawAttentionControls(PanelContext& c, int& layer, int layers) {
    layer = std::clamp(layer, 0, layers - 1);
    if (c.exporting) {
        ImGui::Text("%s | %s", layerLabel(layer, layers).c_str(),
                    c.view.showMaskedScores ? "scores before the softmax (with the mask: -inf where masked)" : "probabilities (after the softmax)");
        return;
    }
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    int shownLayer = layerNumber(layer);
    ImGui::SliderInt("layer", &shownLayer, 1, layers);
    layer = std::clamp(shownLayer, 1, layers) - 1;
    int which = c.view.showMaskedScores ? 1 : 0;
    // Each choice on the line while it fits, else on the next (a narrow panel, UI scale 2).
    const auto radioWidth = [](const char* label) { return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x; };
    sameLineIfFits(radioWidth("probabilities"));
    ImGui::RadioButton("probabilities", &which, 0);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("after the softmax (stage 13, scores_softmax)");
    sameLineIfFits(radioWidth("scores before softmax"));
    ImGui::RadioButton("scores before softmax", &which, 1);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("before the softmax (stage 13, scores_mask): -inf where masked");
    if ((which == 1) != c.view.showMaskedScores) c.view.showMaskedScores = which == 1;
    exportPngButton(c, "attention");
}

// The layer's scores for every head, with one colour scale, each head's slice extracted once.
struct LayerScores {
    const StageRecord& record;
    const Tensor& scores;  // [N_Heads, seqLen, positions]
    std::string base;      // the slices' cache key
    ColourScale scale;
};

const Slice2D& headSlice(PanelContext& c, const LayerScores& l, int h) {
    return preparedSlice(c.caches.slices, fmt::format("{}/{}", l.base, h), [&] { return PreparedSlice{extractSlice(l.scores, {1, 2, {h, 0, 0}}), {}}; }).slice;
}

// All heads as thumbnails, as many a row as keep them square-ish; a click enlarges one.
void drawAllHeads(PanelContext& c, const LayerScores& l, int heads) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("Step %d, %s: %d heads, each [%d queries x %d keys]. Click a head to enlarge it.", l.record.step, layerLabel(l.record.layer).c_str(),
                        heads, int(l.scores.dim(1)), int(l.scores.dim(2)));
    ImGui::PopTextWrapPos();
    drawLegend(l.scale, c.view.showMaskedScores, ImGui::GetFontSize() * 16);
    ImVec2 avail = ImGui::GetContentRegionAvail();
    int perRow = std::max(1, int(std::ceil(std::sqrt(double(heads) * avail.x / std::max(avail.y, 1.0f)))));
    perRow = std::min(perRow, heads);
    int rowsOfThumbs = (heads + perRow - 1) / perRow;
    float tw = avail.x / float(perRow) - ImGui::GetStyle().ItemSpacing.x;
    float th = avail.y / float(rowsOfThumbs) - ImGui::GetFontSize() * 1.6f;
    for (int h = 0; h < heads; ++h) {
        if (h % perRow) ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::TextUnformatted(headLabel(h).c_str());
        HeatmapHit hit = drawHeatmap(fmt::format("{}/{}", l.base, h), headSlice(c, l, h), l.scale, c.textures, c.view.heatmapZooms, ImVec2(tw, th), nullptr,
                                     HeatmapStyle{.maxCell = 64, .zoomable = false});
        if (hit.hovered) ImGui::SetTooltip("%s: click to enlarge", headLabel(h).c_str());
        if (hit.clicked) c.view.head = h, c.view.cell.reset();
        ImGui::EndGroup();
    }
}

// One head enlarged, tokens on both axes, and the clicked cell's arithmetic beside it (or under
// it, where the panel is narrow).
void drawOneHead(PanelContext& c, const LayerScores& l, int heads) {
    int& head = c.view.head;
    if (c.exporting) {
        ImGui::TextUnformatted(fmt::format("{} of {}", headLabel(head), heads).c_str());
    } else {
        if (button(c.view, "< all heads", true)) {
            head = -1, c.view.cell.reset();
            return;  // the grid from the next frame; the slider below must not pick a head again
        }
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
        int shownHead = headNumber(head);
        if (ImGui::SliderInt("head", &shownHead, 1, heads)) head = std::clamp(shownHead, 1, heads) - 1;
    }
    const StageRecord& r = l.record;
    ImGui::SameLine();
    ImGui::TextDisabled("step %d, %s", r.step, r.seqLen == 1 ? "decode: one query row over every cached position" : "prefill");
    ImVec2 avail = ImGui::GetContentRegionAvail();
    // The arithmetic beside the heatmap, as wide as its lines need (about 17 em) while the heatmap
    // keeps 45% of the width; else under it: never clipped at a large UI scale.
    const float explainW = std::max(avail.x * 0.36f, ImGui::GetFontSize() * 17);
    const bool beside = avail.x - explainW >= avail.x * 0.45f;
    ImGui::BeginChild("map", beside ? ImVec2(avail.x - explainW, 0) : ImVec2(0, avail.y * 0.62f));
    drawLegend(l.scale, c.view.showMaskedScores, ImGui::GetFontSize() * 16);
    const Slice2D& s = headSlice(c, l, head);
    HeatmapLabels labels = tokenLabels(c, r, int(l.scores.dim(2)));
    const int selRow = c.view.cell ? c.view.cell->row : -1, selCol = c.view.cell ? c.view.cell->col : -1;
    HeatmapHit hit = drawHeatmap(fmt::format("{}/{}", l.base, head), s, l.scale, c.textures, c.view.heatmapZooms, ImGui::GetContentRegionAvail(), &labels,
                                 HeatmapStyle{.maxCell = 48, .selectedRow = selRow, .selectedCol = selCol});
    valueTooltip(hit, s, &labels);
    if (hit.clicked) c.view.cellBeforeClick = c.view.cell, c.view.cell = AttentionCell{hit.row, hit.col};
    // A double-click resets the zoom only: the cell its first click picked gives way to the one explained before.
    if (hit.zoomReset) c.view.cell = c.view.cellBeforeClick;
    ImGui::EndChild();
    if (beside) ImGui::SameLine();
    ImGui::BeginChild("explain", ImVec2(0, 0), true);
    if (c.view.cell && (c.view.cell->row >= s.rows || c.view.cell->col >= s.cols)) c.view.cell.reset();
    ImGui::PushTextWrapPos(0);  // the arithmetic's long lines wrap rather than run out of the pane
    explainCell(c, r, l.scores, head);
    ImGui::PopTextWrapPos();
    ImGui::EndChild();
}
}  // namespace

void drawAttentionPanel(PanelContext& c) {
    if (!c.model || !c.current) {
        ImGui::TextDisabled("No run yet.");
        return;
    }
    const int layers = c.model->args.n_layers, heads = c.model->args.n_heads;
    drawAttentionControls(c, c.view.attentionLayer, layers);
    const int layer = c.view.attentionLayer;
    HeadSlices hs = findScores(c, c.current->step, layer);
    if (!hs.scores) {
        ImGui::TextWrapped("%s", attentionMissing(hs.record, layer, c.current->step, c.view.showMaskedScores).c_str());
        return;
    }
    // One scale for every head of the layer, so heads compare by colour. Probabilities run from 0
    // to the layer's largest (1 in a prefill's first row; decode rows spread thinner).
    const Tensor& scores = *hs.scores;
    const std::string base = fmt::format("att/{}/{}", hs.record->index, c.view.showMaskedScores);
    ColourScale scale = preparedSlice(c.caches.slices, base, [&] {
                            std::vector<float> all(size_t(scores.numel()));
                            for (int64_t i = 0; i < scores.numel(); ++i) all[size_t(i)] = scores.floatAt(i);
                            return PreparedSlice{{}, scaleFor(all)};
                        }).scale;
    if (!c.view.showMaskedScores) scale.lo = 0;
    const LayerScores l{*hs.record, scores, base, scale};
    if (c.view.head >= heads) c.view.head = -1;
    if (c.view.head < 0) drawAllHeads(c, l, heads);
    else drawOneHead(c, l, heads);
}

}  // namespace llama::viewer
