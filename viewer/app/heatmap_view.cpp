#include "heatmap_view.h"

#include <algorithm>
#include <cmath>

namespace llama::viewer {

namespace {
constexpr int kMaxTextureSide = 2048;  // larger slices are sampled (nearest), the hover shows exact values
constexpr int kMaxLabelled = 64;       // more indices than this get no per-index labels

ImU32 toImU32(Rgb c) { return IM_COL32(c.r, c.g, c.b, 255); }

std::string labelFor(const std::vector<std::string>& labels, int i) {
    return i < int(labels.size()) ? labels[size_t(i)] : std::to_string(i);
}

float widestLabel(const std::vector<std::string>& labels, int n, float cap) {
    float w = 0;
    for (int i = 0; i < n; ++i) w = std::max(w, ImGui::CalcTextSize(labelFor(labels, i).c_str()).x);
    return std::min(w, cap);
}
}  // namespace

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
                       const HeatmapLabels* labels, float maxCell, int selectedRow, int selectedCol) {
    HeatmapHit hit;
    if (s.rows == 0 || s.cols == 0) return hit;
    const float font = ImGui::GetFontSize();
    const bool rowLabels = labels && s.rows <= kMaxLabelled;
    const bool colLabels = labels && s.cols <= kMaxLabelled;
    float left = rowLabels ? widestLabel(labels->rows, int(s.rows), 10 * font) + 6 : 0;
    float top = colLabels ? widestLabel(labels->cols, int(s.cols), 7 * font) + 6 : 0;

    float cw = std::max(1.0f, (maxSize.x - left) / float(s.cols));
    float ch = std::max(1.0f, (maxSize.y - top) / float(s.rows));
    if (s.rows <= kMaxLabelled && s.cols <= kMaxLabelled) cw = ch = std::min({cw, ch, maxCell});  // square cells read as a matrix
    else cw = std::min(cw, maxCell), ch = std::min(ch, maxCell);
    // Labels only where a cell is tall (wide) enough to hold one line of text.
    if (rowLabels && ch < font * 0.8f) left = 0;
    if (colLabels && cw < font * 0.8f) top = 0;

    ImVec2 origin = ImGui::GetCursorScreenPos();
    ImVec2 grid(origin.x + left, origin.y + top);
    ImVec2 size(cw * float(s.cols), ch * float(s.rows));

    if (!textures.has(key)) {
        int tw = int(std::min<int64_t>(s.cols, kMaxTextureSide)), th = int(std::min<int64_t>(s.rows, kMaxTextureSide));
        std::vector<uint8_t> px(size_t(tw) * th * 4);
        for (int y = 0; y < th; ++y)
            for (int x = 0; x < tw; ++x) {
                Rgb c = colourFor(s.at(int64_t(y) * s.rows / th, int64_t(x) * s.cols / tw), scale);
                uint8_t* p = &px[(size_t(y) * tw + x) * 4];
                p[0] = c.r, p[1] = c.g, p[2] = c.b, p[3] = 255;
            }
        textures.get(key, tw, th, px);
    }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddImage(ImTextureID(intptr_t(textures.touch(key))), grid, ImVec2(grid.x + size.x, grid.y + size.y));

    ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    if (left > 0)
        for (int r = 0; r < s.rows; ++r) {
            std::string l = labelFor(labels->rows, r);
            float w = ImGui::CalcTextSize(l.c_str()).x;
            dl->AddText(ImVec2(grid.x - 4 - w, grid.y + ch * r + (ch - font) / 2), text, l.c_str());
        }
    if (top > 0)
        for (int c = 0; c < s.cols; ++c)
            addVerticalText(dl, ImVec2(grid.x + cw * c + (cw - font) / 2, grid.y - 4), text, labelFor(labels->cols, c));

    if (selectedRow >= 0 && selectedCol >= 0 && selectedRow < s.rows && selectedCol < s.cols)
        dl->AddRect(ImVec2(grid.x + cw * selectedCol - 1, grid.y + ch * selectedRow - 1),
                    ImVec2(grid.x + cw * (selectedCol + 1) + 1, grid.y + ch * (selectedRow + 1) + 1), IM_COL32(255, 80, 80, 255), 0, 0, 3);

    ImGui::SetCursorScreenPos(grid);
    ImGui::InvisibleButton(key.c_str(), ImVec2(std::max(size.x, 1.0f), std::max(size.y, 1.0f)));
    if (ImGui::IsItemHovered()) {
        ImVec2 m = ImGui::GetMousePos();
        hit.hovered = true;
        hit.col = std::clamp(int((m.x - grid.x) / cw), 0, int(s.cols) - 1);
        hit.row = std::clamp(int((m.y - grid.y) / ch), 0, int(s.rows) - 1);
        hit.clicked = ImGui::IsItemClicked();
        // Outline the cell under the cursor when cells are big enough to see it.
        if (cw >= 4 && ch >= 4)
            dl->AddRect(ImVec2(grid.x + cw * hit.col, grid.y + ch * hit.row), ImVec2(grid.x + cw * (hit.col + 1), grid.y + ch * (hit.row + 1)),
                        IM_COL32(255, 255, 255, 255), 0, 0, 2);
    }
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
