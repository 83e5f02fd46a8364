#include "heatmap_view.h"

#include <imgui_internal.h>  // SetItemUsingMouseWheel: the wheel zooms the heatmap instead of scrolling

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "fonts.h"
#include "panels/panels.h"

namespace llama::viewer {

namespace {
constexpr int kMaxTextureSide = 2048;  // larger slices are sampled (nearest), the hover shows exact values
constexpr int kMaxLabelled = 64;       // more indices than this get cells as tall as the room allows, not square ones

ImU32 toImU32(Rgb c) { return IM_COL32(c.r, c.g, c.b, 255); }

std::string labelFor(const std::vector<std::string>& labels, int i) {
    return i < int(labels.size()) ? labels[size_t(i)] : std::to_string(i);
}

struct HeatmapZoom {
    float factor = 1, r0 = 0, c0 = 0;
};
std::unordered_map<ImGuiID, HeatmapZoom>& heatmapZooms() {
    static std::unordered_map<ImGuiID, HeatmapZoom> zooms;
    return zooms;
}

// Measures at most 512 labels (evenly spread): a context of millions of positions costs no more.
float widestLabel(const std::vector<std::string>& labels, int n, float cap) {
    float w = 0;
    for (int i = 0; i < n; i += std::max(1, n / 512)) w = std::max(w, ImGui::CalcTextSize(labelFor(labels, i).c_str()).x);
    return std::min(w, cap);
}
}  // namespace

const PreparedSlice& preparedSlice(const std::string& key, const std::function<PreparedSlice()>& make) {
    struct Entry {
        PreparedSlice prepared;
        int lastFrame;
    };
    static std::unordered_map<std::string, Entry> entries;
    const int frame = ImGui::GetFrameCount();
    std::erase_if(entries, [&](const auto& e) { return e.second.lastFrame < frame - 1; });
    auto it = entries.find(key);
    if (it == entries.end()) it = entries.emplace(key, Entry{make(), frame}).first;
    it->second.lastFrame = frame;
    return it->second.prepared;
}

void addVerticalText(ImDrawList* dl, ImVec2 bottomLeft, ImU32 colour, const std::string& text) {
    int start = dl->VtxBuffer.Size;
    dl->AddText(bottomLeft, colour, text.c_str());
    // Rotate the glyph quads by -90 degrees around bottomLeft: text now reads upwards.
    for (int i = start; i < dl->VtxBuffer.Size; ++i) {
        ImVec2& p = dl->VtxBuffer[i].pos;
        float dx = p.x - bottomLeft.x, dy = p.y - bottomLeft.y;
        p = ImVec2(bottomLeft.x + dy, bottomLeft.y - dx);
    }
}

HeatmapHit drawHeatmap(const std::string& key, const Slice2D& s, const ColourScale& scale, TextureCache& textures, ImVec2 maxSize,
                       const HeatmapLabels* labels, const HeatmapStyle& style) {
    HeatmapHit hit;
    if (s.rows == 0 || s.cols == 0) return hit;
    const float font = ImGui::GetFontSize();
    // A line above a zoomable heatmap says how to zoom, or how far it is zoomed.
    const ImVec2 noteAt = ImGui::GetCursorScreenPos();
    const float noteH = style.zoomable ? ImGui::GetTextLineHeightWithSpacing() : 0;
    maxSize.y -= noteH;
    const float ui = font / kBaseFontPixels;  // the UI scale enlarges the data as well as the text
    const float maxH = style.maxCell * ui, maxW = (style.maxCellWidth > 0 ? style.maxCellWidth : style.maxCell) * ui;
    auto colourOf = [&](float v) { return style.colour ? style.colour(v) : colourFor(v, scale); };
    // Zoom and pan belong to the place the heatmap is drawn (and its size), not to its content:
    // stepping to the next stage keeps the learner's zoom.
    const ImGuiID zoomId = ImGui::GetID(fmt::format("zoom{}x{}", s.rows, s.cols).c_str());
    const bool fresh = !heatmapZooms().count(zoomId);
    HeatmapZoom& zoom = heatmapZooms()[zoomId];

    // Labels take at most 30% of the room (at UI scale 2 the matrix would vanish behind them), or
    // what the matrix leaves when its cells are at their largest (the lens's few layers).
    const float spareX = maxSize.x - float(s.cols) * maxW, spareY = maxSize.y - float(s.rows) * maxH;
    float left = labels ? std::min(widestLabel(labels->rows, int(s.rows), 10 * font) + 6, std::max(maxSize.x * 0.3f, spareX)) : 0;
    float top = labels ? std::min(widestLabel(labels->cols, int(s.cols), 6 * font) + 6, std::max(maxSize.y * 0.3f, spareY)) : 0;
    float cw = std::max(1.0f, (maxSize.x - left) / float(s.cols));
    float ch = std::max(1.0f, (maxSize.y - top) / float(s.rows));
    if (style.squareCells && s.rows <= kMaxLabelled && s.cols <= kMaxLabelled) cw = ch = std::min({cw, ch, maxW, maxH});
    else cw = std::min(cw, maxW), ch = std::min(ch, maxH);
    const ImVec2 size(cw * float(s.cols), ch * float(s.rows));
    // An axis zooms when its cells were shrunk to fit: a few rows at full height (the lens's
    // layers, a decode step's one query) stay whole while the positions beside them zoom.
    const bool zoomCols = style.zoomable && s.cols > 1 && cw < maxW - 0.5f, zoomRows = style.zoomable && s.rows > 1 && ch < maxH - 0.5f;
    if (!zoomCols && !zoomRows) zoom = {};
    const float mostZoom = std::max(1.0f, float(std::max(zoomRows ? s.rows : 1, zoomCols ? s.cols : 1)) / 4);
    if (fresh && zoomCols && cw < style.startCellWidth * ui) zoom.factor = std::min(style.startCellWidth * ui / cw, mostZoom);
    const float fc = zoomCols ? zoom.factor : 1, fr = zoomRows ? zoom.factor : 1;
    // Zoomed: the same area shows rows/fr x cols/fc cells from (r0, c0).
    const float zcw = cw * fc, zch = ch * fr;
    const float visRows = float(s.rows) / fr, visCols = float(s.cols) / fc;
    zoom.r0 = std::clamp(zoom.r0, 0.0f, float(s.rows) - visRows), zoom.c0 = std::clamp(zoom.c0, 0.0f, float(s.cols) - visCols);
    // The cells in sight, [firstRow, endRow) x [firstCol, endCol): whatever the slice's size, no
    // more than fit in maxSize are ever visited below.
    const int firstRow = int(zoom.r0), endRow = int(std::min<float>(float(s.rows), std::ceil(zoom.r0 + visRows)));
    const int firstCol = int(zoom.c0), endCol = int(std::min<float>(float(s.cols), std::ceil(zoom.c0 + visCols)));
    // Labels thinned to every k-th index so they never overlap (a 128-token prompt keeps every
    // 8th or so).
    const int rowEvery = std::max(1, int(std::ceil(font / zch))), colEvery = std::max(1, int(std::ceil(font / zcw)));

    const ImVec2 origin(noteAt.x, noteAt.y + noteH);
    ImVec2 grid(origin.x + left, origin.y + top);

    if (!textures.has(key)) {
        int tw = int(std::min<int64_t>(s.cols, kMaxTextureSide)), th = int(std::min<int64_t>(s.rows, kMaxTextureSide));
        std::vector<uint8_t> px(size_t(tw) * th * 4);
        for (int y = 0; y < th; ++y)
            for (int x = 0; x < tw; ++x) {
                Rgb c = colourOf(s.at(int64_t(y) * s.rows / th, int64_t(x) * s.cols / tw));
                uint8_t* p = &px[(size_t(y) * tw + x) * 4];
                p[0] = c.r, p[1] = c.g, p[2] = c.b, p[3] = 255;
            }
        textures.get(key, tw, th, px);
    }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 end(grid.x + size.x, grid.y + size.y);
    dl->AddImage(ImTextureID(intptr_t(textures.touch(key))), grid, end, ImVec2(zoom.c0 / float(s.cols), zoom.r0 / float(s.rows)),
                 ImVec2((zoom.c0 + visCols) / float(s.cols), (zoom.r0 + visRows) / float(s.rows)));
    // Screen position of a cell's corner.
    auto cellX = [&](float col) { return grid.x + (col - zoom.c0) * zcw; };
    auto cellY = [&](float row) { return grid.y + (row - zoom.r0) * zch; };

    ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    if (left > 0) {
        dl->PushClipRect(ImVec2(origin.x, grid.y), ImVec2(grid.x, end.y), true);
        for (int r = firstRow / rowEvery * rowEvery; r < endRow; r += rowEvery) {
            std::string l = elided(labelFor(labels->rows, r), left - 6);
            float w = ImGui::CalcTextSize(l.c_str()).x;
            // Centred on a cell taller than the text, else from the cell's top over the unlabelled
            // ones below it: never outside the grid's height (the column labels are above it).
            const float y = cellY(float(r)) + std::max(0.0f, (zch - font) / 2);
            if (y + font > end.y + 1) continue;
            dl->AddText(ImVec2(grid.x - 4 - w, y), text, l.c_str());
        }
        dl->PopClipRect();
    }
    if (top > 0) {
        // ImGui culls glyphs against the clip rect as laid out, before addVerticalText turns them:
        // the rect reaches a label's length past the grid (turned, no label passes end.x).
        dl->PushClipRect(ImVec2(grid.x, origin.y), ImVec2(end.x + top, grid.y), true);
        for (int c = firstCol / colEvery * colEvery; c < endCol; c += colEvery) {
            const float x = cellX(float(c)) + std::max(0.0f, (zcw - font) / 2);
            if (x + font > end.x + 1) continue;
            addVerticalText(dl, ImVec2(x, grid.y - 4), text, elided(labelFor(labels->cols, c), top - 6));
        }
        dl->PopClipRect();
    }

    dl->PushClipRect(grid, end, true);
    if (style.gridLines && zcw >= 6 && zch >= 6) {
        const ImU32 gap = ImGui::GetColorU32(ImGuiCol_WindowBg);
        for (int c = firstCol + 1; c < endCol; ++c) dl->AddLine(ImVec2(cellX(float(c)), grid.y), ImVec2(cellX(float(c)), end.y), gap);
        for (int r = firstRow + 1; r < endRow; ++r) dl->AddLine(ImVec2(grid.x, cellY(float(r))), ImVec2(end.x, cellY(float(r))), gap);
    }
    if (style.cellText && zcw >= 1.2f * font && zch >= font) {
        // Cells this large: at most maxSize's area / (1.2 font^2) of them are in sight.
        for (int r = firstRow; r < endRow; ++r)
            for (int c = firstCol; c < endCol; ++c) {
                const std::string t = elided(style.cellText(r, c), zcw - 4);
                if (t.empty()) continue;
                const Rgb bg = colourOf(s.at(r, c));
                const bool light = 0.299f * bg.r + 0.587f * bg.g + 0.114f * bg.b > 140;
                const ImVec2 ts = ImGui::CalcTextSize(t.c_str());
                dl->AddText(ImVec2(cellX(float(c)) + (zcw - ts.x) / 2, cellY(float(r)) + (zch - ts.y) / 2),
                            light ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255), t.c_str());
            }
    }
    if (style.selectedRow >= 0 && style.selectedCol >= 0 && style.selectedRow < s.rows && style.selectedCol < s.cols)
        dl->AddRect(ImVec2(cellX(float(style.selectedCol)) - 1, cellY(float(style.selectedRow)) - 1),
                    ImVec2(cellX(float(style.selectedCol + 1)) + 1, cellY(float(style.selectedRow + 1)) + 1), IM_COL32(255, 80, 80, 255), 0, 0, 3);

    ImGui::SetCursorScreenPos(grid);
    ImGui::InvisibleButton(key.c_str(), ImVec2(std::max(size.x, 1.0f), std::max(size.y, 1.0f)));
    const bool canZoom = zoomRows || zoomCols;
    if (ImGui::IsItemHovered()) {
        const ImGuiIO& io = ImGui::GetIO();
        ImVec2 m = ImGui::GetMousePos();
        if (canZoom) {
            ImGui::SetItemUsingMouseWheel();
            if (io.MouseWheel != 0) {
                // Zoom around the cell under the pointer.
                float col = zoom.c0 + (m.x - grid.x) / zcw, row = zoom.r0 + (m.y - grid.y) / zch;
                zoom.factor = std::clamp(zoom.factor * std::pow(1.25f, io.MouseWheel), 1.0f, mostZoom);
                if (zoomCols) zoom.c0 = col - (m.x - grid.x) / (cw * zoom.factor);
                if (zoomRows) zoom.r0 = row - (m.y - grid.y) / (ch * zoom.factor);
            }
            if (ImGui::IsMouseDoubleClicked(0)) zoom = {};
        }
        hit.hovered = true;
        hit.col = std::clamp(int(zoom.c0 + (m.x - grid.x) / zcw), 0, int(s.cols) - 1);
        hit.row = std::clamp(int(zoom.r0 + (m.y - grid.y) / zch), 0, int(s.rows) - 1);
        hit.clicked = ImGui::IsItemClicked() && !ImGui::IsMouseDragging(0);
        // Outline the cell under the cursor when cells are big enough to see it.
        if (zcw >= 4 && zch >= 4)
            dl->AddRect(ImVec2(cellX(float(hit.col)), cellY(float(hit.row))), ImVec2(cellX(float(hit.col + 1)), cellY(float(hit.row + 1))),
                        IM_COL32(255, 255, 255, 255), 0, 0, 2);
    }
    if (canZoom && ImGui::IsItemActive() && ImGui::IsMouseDragging(0)) {
        ImVec2 d = ImGui::GetIO().MouseDelta;
        if (zoomCols) zoom.c0 -= d.x / zcw;
        if (zoomRows) zoom.r0 -= d.y / zch;
    }
    dl->PopClipRect();
    // How far it is zoomed (exports say so too); how to zoom while the pointer is over it.
    if (canZoom && zoom.factor > 1)
        dl->AddText(noteAt, ImGui::GetColorU32(ImGuiCol_TextDisabled),
                    fmt::format("zoom {:.1f}x: drag to pan, double-click to see it all", zoom.factor).c_str());
    else if (canZoom && hit.hovered)
        dl->AddText(noteAt, ImGui::GetColorU32(ImGuiCol_TextDisabled), "mouse wheel: zoom, drag: pan");
    return hit;
}

void valueTooltip(const HeatmapHit& hit, const Slice2D& s, const HeatmapLabels* labels) {
    if (!hit.hovered) return;
    float v = s.at(hit.row, hit.col);
    ImGui::BeginTooltip();
    if (labels) {
        ImGui::Text("%s %d: %s", labels->rowAxis.c_str(), hit.row, labelFor(labels->rows, hit.row).c_str());
        ImGui::Text("%s %d: %s", labels->colAxis.c_str(), hit.col, labelFor(labels->cols, hit.col).c_str());
    } else {
        ImGui::Text("row %d, column %d", hit.row, hit.col);
    }
    if (std::isinf(v)) ImGui::Text("value: %s", v < 0 ? "-inf" : "+inf");
    else ImGui::Text("value: %.6g", v);
    ImGui::EndTooltip();
}

void drawLegend(const ColourScale& scale, bool showNegInf, float width) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetFontSize();
    const int steps = 64;
    for (int i = 0; i < steps; ++i) {
        float x0 = p.x + width * i / steps, x1 = p.x + width * (i + 1) / steps;
        dl->AddRectFilled(ImVec2(x0, p.y), ImVec2(x1, p.y + h), toImU32(rampColour((i + 0.5f) / steps, scale.diverging)));
    }
    ImGui::Dummy(ImVec2(width, h));
    ImGui::Text("%.4g", scale.lo);
    ImGui::SameLine(width / 2 - ImGui::CalcTextSize("0").x);
    ImGui::Text("%.4g", (scale.lo + scale.hi) / 2);
    ImGui::SameLine(width - ImGui::CalcTextSize("0.0000").x);
    ImGui::Text("%.4g", scale.hi);
    if (scale.diverging) ImGui::TextDisabled("diverging scale: blue < 0 < red, symmetric around 0");
    if (showNegInf) {
        ImVec2 q = ImGui::GetCursorScreenPos();
        dl->AddRectFilled(q, ImVec2(q.x + h, q.y + h), toImU32(kNegInfColour));
        ImGui::Dummy(ImVec2(h, h));
        ImGui::SameLine();
        ImGui::TextUnformatted("-inf (masked)");
    }
}

}  // namespace llama::viewer
