#pragma once
// Draws a Slice2D as a heatmap: square cells when the matrix is small, labels on both axes
// when they fit (column labels rotated), the value under the cursor, and a colour legend.
#include <imgui.h>

#include <string>
#include <vector>

#include "state/colour_map.h"
#include "gl_textures.h"
#include "state/tensor_slice.h"

namespace llama::viewer {

struct HeatmapLabels {
    std::string rowAxis, colAxis;             // axis names, e.g. "query position (seqLen)"
    std::vector<std::string> rows, cols;      // per index; empty: numbers
};

struct HeatmapHit {
    bool hovered = false, clicked = false;
    int row = -1, col = -1;
};

// `key` identifies the slice's content for the texture cache. `maxSize` bounds the drawing;
// `maxCell` caps a cell's side (thumbnails pass a small one); the selected cell gets an outline.
HeatmapHit drawHeatmap(const std::string& key, const Slice2D& slice, const ColourScale& scale, TextureCache& textures,
                       ImVec2 maxSize, const HeatmapLabels* labels, float maxCell = 48.0f, int selectedRow = -1, int selectedCol = -1);
void drawLegend(const ColourScale& scale, bool showNegInf, float width);
// A small text box with the value under the cursor (call after drawHeatmap when hovered).
void valueTooltip(const HeatmapHit& hit, const Slice2D& slice, const HeatmapLabels* labels);
// Rotated text (reading upwards), for column labels.
void addVerticalText(ImDrawList* dl, ImVec2 bottomLeft, ImU32 colour, const std::string& text);

}  // namespace llama::viewer
