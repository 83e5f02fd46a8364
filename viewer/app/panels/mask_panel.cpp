// The causal mask of the prefill: row i (a query position) may look at columns up to i.
// Its cells carry their value, 0 or -inf, once they are large enough: the point is to read them.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "heatmap_view.h"
#include "panels.h"

namespace llama::viewer {

namespace {
constexpr Rgb kMaskKeptColour{235, 235, 225};

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
    if (t.rank() != 2) {
        ImGui::TextDisabled("(a mask of rank %d: expected [seqLen, positions])", int(t.rank()));
        return;
    }
    // Drawn as the other heatmaps are (zoom, pan, thinned labels), in the mask's own two colours,
    // with 0 and -inf written in once cells are large enough to read them.
    const std::string key = fmt::format("mask/{}", r->index);
    const Slice2D& s = preparedSlice(c.caches.slices, key, [&] { return PreparedSlice{extractSlice(t, defaultSlice(t)), {}}; }).slice;
    HeatmapLabels labels{"query position", "key position", {}, {}};
    for (int64_t i = 0; i < s.rows; ++i) labels.rows.push_back(c.positionLabel(r->startPos + int(i)));
    for (int64_t j = 0; j < s.cols; ++j) labels.cols.push_back(c.positionLabel(int(j)));
    HeatmapStyle style;
    style.maxCell = 48;
    style.gridLines = true;
    style.colour = [](float v) { return std::isinf(v) && v < 0 ? kNegInfColour : kMaskKeptColour; };
    style.cellText = [&s](int i, int j) { return std::string(std::isinf(s.at(i, j)) ? "-\xe2\x88\x9e" : "0"); };  // −∞
    const float font = ImGui::GetFontSize();
    ImVec2 avail = ImGui::GetContentRegionAvail();
    avail.y -= font * 1.6f;  // the key below
    // A short prompt's mask keeps cells large enough to read 0 and -inf, the panel scrolling if need be.
    if (s.rows <= 24) avail.y = std::max(avail.y, font * (8 + 1.4f * float(s.rows)));
    HeatmapHit hit = drawHeatmap(key, s, ColourScale{}, c.textures, c.view.heatmapZooms, avail, &labels, style);
    valueTooltip(hit, s, &labels);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (auto [colour, what] : {std::pair{kMaskKeptColour, "0: kept"}, std::pair{kNegInfColour, "-inf: masked"}}) {
        const ImVec2 q = ImGui::GetCursorScreenPos();
        dl->AddRectFilled(q, ImVec2(q.x + font, q.y + font), toImColour(colour));
        ImGui::Dummy(ImVec2(font, font));
        ImGui::SameLine();
        ImGui::TextUnformatted(what);
        ImGui::SameLine(0, font);
    }
    ImGui::NewLine();
}

}  // namespace llama::viewer
