#include "heatmap_view.h"

#include <imgui_internal.h>  // SetItemUsingMouseWheel: the wheel zooms the heatmap instead of scrolling

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "fonts.h"
#include "panels/panels.h"

namespace llama::viewer {

namespace {
constexpr int kMaxTextureSide = 2048;  // larger slices are sampled (nearest), the hover shows exact values
constexpr int kMaxLabelled = 64;       // more indices than this get cells as tall as the room allows, not square ones

std::string labelFor(const std::vector<std::string>& labels, int i) {
    return i < int(labels.size()) ? labels[size_t(i)] : std::to_string(i);
}

// Measures at most 512 labels (evenly spread): a context of millions of positions costs no more.
float widestLabel(const std::vector<std::string>& labels, int n, float cap) {
    float w = 0;
    for (int i = 0; i < n; i += std::max(1, n / 512)) w = std::max(w, ImGui::CalcTextSize(labelFor(labels, i).c_str()).x);
    return std::min(w, cap);
}
}  // namespace

const PreparedSlice& preparedSlice(PreparedSlices& slices, const std::string& key, const std::function<PreparedSlice()>& make) {
    return slices.get(key, ImGui::GetFrameCount(), make);
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

namespace {
// Where a heatmap's parts go this frame: label room, cell sizes, the zoom applied, and the cells
// in sight, [firstRow, endRow) x [firstCol, endCol): whatever the slice's size, no more than fit
// in maxSize are ever visited.
struct HeatmapGeometry {
    float font = 0;
    ImVec2 noteAt, origin, grid, end;  // the zoom note's line; the labels' and the grid's corners
    float left = 0, top = 0;           // room for the row and column labels
    float cw = 0, ch = 0;              // a cell at zoom 1
    ImVec2 size;
    bool zoomCols = false, zoomRows = false;
    float mostZoom = 1;
    HeatmapZoom* zoom = nullptr;
    float zcw = 0, zch = 0;  // a cell as zoomed
    float visRows = 0, visCols = 0;
    int firstRow = 0, endRow = 0, firstCol = 0, endCol = 0;
    int rowEvery = 1, colEvery = 1;  // labels thinned to every k-th index so they never overlap

    // Screen position of a cell's corner.
    float cellX(float col) const { return grid.x + (col - zoom->c0) * zcw; }
    float cellY(float row) const { return grid.y + (row - zoom->r0) * zch; }
    bool canZoom() const { return zoomRows || zoomCols; }
};

HeatmapGeometry layOutHeatmap(const Slice2D& s, std::map<unsigned, HeatmapZoom>& zooms, ImVec2 maxSize, const HeatmapLabels* labels,
                              const HeatmapStyle& style) {
    HeatmapGeometry g;
    const float font = g.font = ImGui::GetFontSize();
    // A line above a zoomable heatmap says how to zoom, or how far it is zoomed.
    g.noteAt = ImGui::GetCursorScreenPos();
    const float noteH = style.zoomable ? ImGui::GetTextLineHeightWithSpacing() : 0;
    maxSize.y -= noteH;
    const float ui = font / kBaseFontPixels;  // the UI scale enlarges the data as well as the text
    const float maxH = style.maxCell * ui, maxW = (style.maxCellWidth > 0 ? style.maxCellWidth : style.maxCell) * ui;
    // Zoom and pan belong to the place the heatmap is drawn (and its size), not to its content:
    // stepping to the next stage keeps the learner's zoom.
    const ImGuiID zoomId = ImGui::GetID(fmt::format("zoom{}x{}", s.rows, s.cols).c_str());
    const bool fresh = !zooms.count(zoomId);
    HeatmapZoom& zoom = *(g.zoom = &zooms[zoomId]);

    // Labels take at most 30% of the room (at UI scale 2 the matrix would vanish behind them), or
    // what the matrix leaves when its cells are at their largest (the lens's few layers).
    const float spareX = maxSize.x - float(s.cols) * maxW, spareY = maxSize.y - float(s.rows) * maxH;
    g.left = labels ? std::min(widestLabel(labels->rows, int(s.rows), 10 * font) + 6, std::max(maxSize.x * 0.3f, spareX)) : 0;
    g.top = labels ? std::min(widestLabel(labels->cols, int(s.cols), 6 * font) + 6, std::max(maxSize.y * 0.3f, spareY)) : 0;
    float cw = std::max(1.0f, (maxSize.x - g.left) / float(s.cols));
    float ch = std::max(1.0f, (maxSize.y - g.top) / float(s.rows));
    if (style.squareCells && s.rows <= kMaxLabelled && s.cols <= kMaxLabelled) cw = ch = std::min({cw, ch, maxW, maxH});
    else cw = std::min(cw, maxW), ch = std::min(ch, maxH);
    g.cw = cw, g.ch = ch;
    g.size = ImVec2(cw * float(s.cols), ch * float(s.rows));
    // An axis zooms when its cells were shrunk to fit: a few rows at full height (the lens's
    // layers, a decode step's one query) stay whole while the positions beside them zoom.
    g.zoomCols = style.zoomable && s.cols > 1 && cw < maxW - 0.5f, g.zoomRows = style.zoomable && s.rows > 1 && ch < maxH - 0.5f;
    if (!g.canZoom()) zoom = {};
    g.mostZoom = std::max(1.0f, float(std::max(g.zoomRows ? s.rows : 1, g.zoomCols ? s.cols : 1)) / 4);
    if (fresh && g.zoomCols && cw < style.startCellWidth * ui) zoom.factor = std::min(style.startCellWidth * ui / cw, g.mostZoom);
    const float fc = g.zoomCols ? zoom.factor : 1, fr = g.zoomRows ? zoom.factor : 1;
    // Zoomed: the same area shows rows/fr x cols/fc cells from (r0, c0).
    g.zcw = cw * fc, g.zch = ch * fr;
    g.visRows = float(s.rows) / fr, g.visCols = float(s.cols) / fc;
    zoom.r0 = std::clamp(zoom.r0, 0.0f, float(s.rows) - g.visRows), zoom.c0 = std::clamp(zoom.c0, 0.0f, float(s.cols) - g.visCols);
    g.firstRow = int(zoom.r0), g.endRow = int(std::min<float>(float(s.rows), std::ceil(zoom.r0 + g.visRows)));
    g.firstCol = int(zoom.c0), g.endCol = int(std::min<float>(float(s.cols), std::ceil(zoom.c0 + g.visCols)));
    // A 128-token prompt keeps every 8th label or so.
    g.rowEvery = std::max(1, int(std::ceil(font / g.zch))), g.colEvery = std::max(1, int(std::ceil(font / g.zcw)));
    g.origin = ImVec2(g.noteAt.x, g.noteAt.y + noteH);
    g.grid = ImVec2(g.origin.x + g.left, g.origin.y + g.top);
    g.end = ImVec2(g.grid.x + g.size.x, g.grid.y + g.size.y);
    return g;
}

// The cells as one texture (made once per key), the zoomed part of it drawn.
void drawHeatmapCells(ImDrawList* dl, const std::string& key, const Slice2D& s, const std::function<Rgb(float)>& colourOf,
                      TextureCache& textures, const HeatmapGeometry& g) {
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
    const HeatmapZoom& zoom = *g.zoom;
    dl->AddImage(ImTextureID(intptr_t(textures.touch(key))), g.grid, g.end, ImVec2(zoom.c0 / float(s.cols), zoom.r0 / float(s.rows)),
                 ImVec2((zoom.c0 + g.visCols) / float(s.cols), (zoom.r0 + g.visRows) / float(s.rows)));
}

// Row labels left of the grid, column labels above it (turned), thinned to fit.
void drawHeatmapLabels(ImDrawList* dl, const HeatmapLabels* labels, const HeatmapGeometry& g) {
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    const float font = g.font;
    if (g.left > 0) {
        dl->PushClipRect(ImVec2(g.origin.x, g.grid.y), ImVec2(g.grid.x, g.end.y), true);
        for (int r = g.firstRow / g.rowEvery * g.rowEvery; r < g.endRow; r += g.rowEvery) {
            std::string l = elided(labelFor(labels->rows, r), g.left - 6);
            float w = ImGui::CalcTextSize(l.c_str()).x;
            // Centred on a cell taller than the text, else from the cell's top over the unlabelled
            // ones below it: never outside the grid's height (the column labels are above it).
            const float y = g.cellY(float(r)) + std::max(0.0f, (g.zch - font) / 2);
            if (y + font > g.end.y + 1) continue;
            dl->AddText(ImVec2(g.grid.x - 4 - w, y), text, l.c_str());
        }
        dl->PopClipRect();
    }
    if (g.top > 0) {
        // ImGui culls glyphs against the clip rect as laid out, before addVerticalText turns them:
        // the rect reaches a label's length past the grid (turned, no label passes end.x).
        dl->PushClipRect(ImVec2(g.grid.x, g.origin.y), ImVec2(g.end.x + g.top, g.grid.y), true);
        for (int c = g.firstCol / g.colEvery * g.colEvery; c < g.endCol; c += g.colEvery) {
            const float x = g.cellX(float(c)) + std::max(0.0f, (g.zcw - font) / 2);
            if (x + font > g.end.x + 1) continue;
            addVerticalText(dl, ImVec2(x, g.grid.y - 4), text, elided(labelFor(labels->cols, c), g.top - 6));
        }
        dl->PopClipRect();
    }
}

// Over the cells: grid lines, each cell's text once cells are large enough, the selected cell.
void drawCellOverlays(ImDrawList* dl, const Slice2D& s, const std::function<Rgb(float)>& colourOf, const HeatmapStyle& style,
                      const HeatmapGeometry& g) {
    const float font = g.font;
    if (style.gridLines && g.zcw >= 6 && g.zch >= 6) {
        const ImU32 gap = ImGui::GetColorU32(ImGuiCol_WindowBg);
        for (int c = g.firstCol + 1; c < g.endCol; ++c) dl->AddLine(ImVec2(g.cellX(float(c)), g.grid.y), ImVec2(g.cellX(float(c)), g.end.y), gap);
        for (int r = g.firstRow + 1; r < g.endRow; ++r) dl->AddLine(ImVec2(g.grid.x, g.cellY(float(r))), ImVec2(g.end.x, g.cellY(float(r))), gap);
    }
    if (style.cellText && g.zcw >= 1.2f * font && g.zch >= font) {
        // Cells this large: at most maxSize's area / (1.2 font^2) of them are in sight.
        for (int r = g.firstRow; r < g.endRow; ++r)
            for (int c = g.firstCol; c < g.endCol; ++c) {
                const std::string t = elided(style.cellText(r, c), g.zcw - 4);
                if (t.empty()) continue;
                const Rgb bg = colourOf(s.at(r, c));
                const bool light = 0.299f * bg.r + 0.587f * bg.g + 0.114f * bg.b > 140;
                const ImVec2 ts = ImGui::CalcTextSize(t.c_str());
                dl->AddText(ImVec2(g.cellX(float(c)) + (g.zcw - ts.x) / 2, g.cellY(float(r)) + (g.zch - ts.y) / 2),
                            light ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255), t.c_str());
            }
    }
    if (style.selectedRow >= 0 && style.selectedCol >= 0 && style.selectedRow < s.rows && style.selectedCol < s.cols)
        dl->AddRect(ImVec2(g.cellX(float(style.selectedCol)) - 1, g.cellY(float(style.selectedRow)) - 1),
                    ImVec2(g.cellX(float(style.selectedCol + 1)) + 1, g.cellY(float(style.selectedRow + 1)) + 1), IM_COL32(255, 80, 80, 255), 0, 0, 3);
}

// The pointer over the grid: the cell under it (outlined), zoom with the wheel around it, a
// double-click to see it all, a drag to pan.
HeatmapHit handleHeatmapPointer(ImDrawList* dl, const std::string& key, const Slice2D& s, const HeatmapGeometry& g) {
    HeatmapHit hit;
    HeatmapZoom& zoom = *g.zoom;
    ImGui::SetCursorScreenPos(g.grid);
    ImGui::InvisibleButton(key.c_str(), ImVec2(std::max(g.size.x, 1.0f), std::max(g.size.y, 1.0f)));
    if (ImGui::IsItemHovered()) {
        const ImGuiIO& io = ImGui::GetIO();
        ImVec2 m = ImGui::GetMousePos();
        if (g.canZoom()) {
            ImGui::SetItemUsingMouseWheel();
            if (io.MouseWheel != 0) {
                // Zoom around the cell under the pointer.
                float col = zoom.c0 + (m.x - g.grid.x) / g.zcw, row = zoom.r0 + (m.y - g.grid.y) / g.zch;
                zoom.factor = std::clamp(zoom.factor * std::pow(1.25f, io.MouseWheel), 1.0f, g.mostZoom);
                if (g.zoomCols) zoom.c0 = col - (m.x - g.grid.x) / (g.cw * zoom.factor);
                if (g.zoomRows) zoom.r0 = row - (m.y - g.grid.y) / (g.ch * zoom.factor);
            }
            if (ImGui::IsMouseDoubleClicked(0)) zoom = {}, hit.zoomReset = true;
        }
        hit.hovered = true;
        hit.col = std::clamp(int(zoom.c0 + (m.x - g.grid.x) / g.zcw), 0, int(s.cols) - 1);
        hit.row = std::clamp(int(zoom.r0 + (m.y - g.grid.y) / g.zch), 0, int(s.rows) - 1);
        // A click is a press and release that did not travel: the press of a drag (a pan) chooses nothing.
        const float threshold = io.MouseDragThreshold;
        // Nor is the release that ends a double-click (which resets the zoom).
        hit.clicked = ImGui::IsMouseReleased(0) && ImGui::IsItemDeactivated() && io.MouseDragMaxDistanceSqr[0] < threshold * threshold &&
                      io.MouseClickedLastCount[0] < 2;
        // Outline the cell under the cursor when cells are big enough to see it.
        if (g.zcw >= 4 && g.zch >= 4)
            dl->AddRect(ImVec2(g.cellX(float(hit.col)), g.cellY(float(hit.row))), ImVec2(g.cellX(float(hit.col + 1)), g.cellY(float(hit.row + 1))),
                        IM_COL32(255, 255, 255, 255), 0, 0, 2);
    }
    if (g.canZoom() && ImGui::IsItemActive() && ImGui::IsMouseDragging(0)) {
        ImVec2 d = ImGui::GetIO().MouseDelta;
        if (g.zoomCols) zoom.c0 -= d.x / g.zcw;
        if (g.zoomRows) zoom.r0 -= d.y / g.zch;
    }
    return hit;
}
}  // namespace

HeatmapHit drawHeatmap(const std::string& key, const Slice2D& s, const ColourScale& scale, TextureCache& textures,
                       std::map<unsigned, HeatmapZoom>& zooms, ImVec2 maxSize, const HeatmapLabels* labels, const HeatmapStyle& style) {
    if (s.rows == 0 || s.cols == 0) return {};
    const std::function<Rgb(float)> colourOf = [&](float v) { return style.colour ? style.colour(v) : colourFor(v, scale); };
    const HeatmapGeometry g = layOutHeatmap(s, zooms, maxSize, labels, style);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    drawHeatmapCells(dl, key, s, colourOf, textures, g);
    drawHeatmapLabels(dl, labels, g);
    dl->PushClipRect(g.grid, g.end, true);
    drawCellOverlays(dl, s, colourOf, style, g);
    const HeatmapHit hit = handleHeatmapPointer(dl, key, s, g);
    dl->PopClipRect();
    // How far it is zoomed (exports say so too); how to zoom while the pointer is over it.
    if (g.canZoom() && g.zoom->factor > 1)
        dl->AddText(g.noteAt, ImGui::GetColorU32(ImGuiCol_TextDisabled),
                    fmt::format("zoom {:.1f}x: drag to pan, double-click to see it all", g.zoom->factor).c_str());
    else if (g.canZoom() && hit.hovered)
        dl->AddText(g.noteAt, ImGui::GetColorU32(ImGuiCol_TextDisabled), "mouse wheel: zoom, drag: pan");
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
        dl->AddRectFilled(ImVec2(x0, p.y), ImVec2(x1, p.y + h), toImColour(rampColour((i + 0.5f) / steps, scale.diverging)));
    }
    ImGui::Dummy(ImVec2(width, h));
    // Each value under its own place on the bar: the lowest at its left end, the middle centred,
    // the highest ending at its right end.
    const float y = ImGui::GetCursorScreenPos().y;
    auto tick = [&](float value, float at) {
        char text[32];
        std::snprintf(text, sizeof text, "%.4g", double(value));
        const float w = ImGui::CalcTextSize(text).x;
        dl->AddText(ImVec2(p.x + std::clamp(width * at - w * at, 0.0f, std::max(0.0f, width - w)), y), ImGui::GetColorU32(ImGuiCol_Text), text);
    };
    tick(scale.lo, 0);
    tick((scale.lo + scale.hi) / 2, 0.5f);
    tick(scale.hi, 1);
    ImGui::Dummy(ImVec2(width, ImGui::GetTextLineHeight()));
    if (scale.diverging) ImGui::TextDisabled("diverging scale: blue < 0 < red, symmetric around 0");
    if (showNegInf) {
        ImVec2 q = ImGui::GetCursorScreenPos();
        dl->AddRectFilled(q, ImVec2(q.x + h, q.y + h), toImColour(kNegInfColour));
        ImGui::Dummy(ImVec2(h, h));
        ImGui::SameLine();
        ImGui::TextUnformatted("-inf (masked)");
    }
}

}  // namespace llama::viewer
