#pragma once
// Draws a Slice2D as a heatmap: square cells when the matrix is small, labels on both axes
// thinned so they never overlap (column labels rotated), zoom (mouse wheel) and pan (drag) with
// a double-click to reset, the value under the cursor, and a colour legend. Every heatmap-like
// panel (tensor, attention, mask, logit lens, compare) draws through this one piece.
#include <imgui.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "state/colour_map.h"
#include "state/panel_caches.h"
#include "state/view_state.h"
#include "gl_textures.h"
#include "state/tensor_slice.h"

namespace llama::viewer {

// A colour of the colour maps as ImGui draws it (opaque).
inline ImU32 toImColour(Rgb c) { return IM_COL32(c.r, c.g, c.b, 255); }

struct HeatmapLabels {
    std::string rowAxis, colAxis;             // axis names, e.g. "query position (seqLen)"
    std::vector<std::string> rows, cols;      // per index; empty: numbers
};

struct HeatmapHit {
    bool hovered = false, clicked = false;
    bool zoomReset = false;  // a double-click reset the zoom (its first click was reported as a click)
    int row = -1, col = -1;
};

struct HeatmapStyle {
    float maxCell = 48;       // a cell's largest side at UI scale 1 (thumbnails pass a small one)
    float maxCellWidth = 0;   // when not 0, the largest width (cells holding text are wider than tall)
    float startCellWidth = 0; // when not 0, narrower cells start zoomed in to this width (the lens's tokens legible at once)
    bool squareCells = true;  // small matrices (64 x 64 and less) get square cells, to read as a matrix
    int selectedRow = -1, selectedCol = -1;  // outlined
    bool zoomable = true;     // false for thumbnails (a click enlarges them)
    bool gridLines = false;   // a gap between cells large enough to show one (the mask's grid)
    std::function<Rgb(float)> colour = {};  // a value's colour; default colourFor(value, scale)
    // Text written into each cell (in black or white, whichever reads on its colour) once cells
    // are large enough for it, e.g. the mask's 0 and -inf or the lens's tokens; zoom to get there.
    std::function<std::string(int row, int col)> cellText = {};
};

// A slice with its colour scale, made once and kept while some frame draws it: extracting and
// scanning a tensor of millions of values every frame would cost more than drawing it. `key`
// names the content as drawHeatmap's does (a key not asked for in the last frame is forgotten).
const PreparedSlice& preparedSlice(PreparedSlices& slices, const std::string& key, const std::function<PreparedSlice()>& make);

// `key` identifies the slice's content (and colours) for the texture cache; `maxSize` bounds the
// drawing; `zooms` keeps each heatmap's zoom and pan (ViewState::heatmapZooms).
HeatmapHit drawHeatmap(const std::string& key, const Slice2D& slice, const ColourScale& scale, TextureCache& textures,
                       std::map<unsigned, HeatmapZoom>& zooms, ImVec2 maxSize, const HeatmapLabels* labels, const HeatmapStyle& style = {});
void drawLegend(const ColourScale& scale, bool showNegInf, float width);
// A small text box with the value under the cursor (call after drawHeatmap when hovered).
void valueTooltip(const HeatmapHit& hit, const Slice2D& slice, const HeatmapLabels* labels);
// Rotated text (reading upwards), for column labels.
void addVerticalText(ImDrawList* dl, ImVec2 bottomLeft, ImU32 colour, const std::string& text);

}  // namespace llama::viewer
