#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "panels.h"

namespace llama::viewer {

std::string PanelContext::piece(int32_t id) const {
    if (!model || !model->tokenizer || id < 0 || id >= model->tokenizer->vocabSize()) return std::to_string(id);
    return model->tokenizer->pieceForDisplay(id);
}

std::string PanelContext::positionLabel(int position) const {
    if (position < 0 || position >= int(snap.positionTokens.size())) return std::to_string(position);
    return fmt::format("{} {}", position, piece(snap.positionTokens[size_t(position)]));
}

DimContext PanelContext::dims(const StageRecord& r) const {
    DimContext d;
    if (model) d.args = model->args;
    d.seqLen = r.seqLen;
    d.startPos = r.startPos;
    if (const CapturedTensor* a = r.stage == StageId::LoraBackward ? r.find("dLoraA") : nullptr; a && !a->shape.empty()) d.loraRank = a->shape[0];
    return d;
}

void drawPanel(PanelContext& c, Panel panel) {
    switch (panel) {
        case Panel::Map: drawMapPanel(c); break;
        case Panel::Shapes: drawShapesPanel(c); break;
        case Panel::Heatmap: drawHeatmapPanel(c); break;
        case Panel::Mask: drawMaskPanel(c); break;
        case Panel::Attention: drawAttentionPanel(c); break;
        case Panel::Logits: drawLogitsPanel(c); break;
        case Panel::Lens: drawLensPanel(c); break;
        case Panel::Compare: drawComparePanel(c); break;
        case Panel::KvCache: drawKvCachePanel(c); break;
        case Panel::Tokens: drawTokensPanel(c); break;
        case Panel::Chapter: drawChapterPanel(c); break;
        case Panel::Batch: drawBatchPanel(c); break;
        case Panel::Patching: drawPatchingPanel(c); break;
    }
}

bool button(ViewState& view, const char* label, bool small) {
    const bool clicked = small ? ImGui::SmallButton(label) : ImGui::Button(label);
    if (view.pressRequested.empty() || view.pressRequested != label) return clicked;
    view.pressRequested.clear();
    return true;
}

void sameLineIfFits(float width) {
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < width) ImGui::NewLine();
}

void loadingBar(const LoadMeter& meter, float width) {
    if (const std::optional<float> f = meter.fraction()) {
        ImGui::ProgressBar(*f, ImVec2(width, 0), fmt::format("{:.0f}%", *f * 100).c_str());
    } else {
        ImGui::ProgressBar(0, ImVec2(width, 0), "");
        const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
        const float block = (b.x - a.x) * 0.25f, t = float(std::fmod(ImGui::GetTime() * 0.6, 1.0));
        const float x = a.x + (b.x - a.x + block) * t - block;
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(std::max(a.x, x), a.y + 2), ImVec2(std::min(b.x, x + block), b.y - 2),
                                                  ImGui::GetColorU32(ImGuiCol_PlotHistogram), 2.0f);
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", meter.describe().c_str());
}

bool hoveringRect(ImVec2 a, ImVec2 b) {
    return !(ImGui::GetIO().ConfigFlags & ImGuiConfigFlags_NoMouse) && ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(a, b);
}

std::string fitText(std::string text, float width) {
    while (text.size() > 1 && ImGui::CalcTextSize(text.c_str()).x > width) {
        while (text.size() > 1 && (static_cast<unsigned char>(text.back()) & 0xC0) == 0x80) text.pop_back();  // continuation bytes
        text.pop_back();
    }
    return text;
}

std::string elided(const std::string& text, float width) {
    if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
    // One glyph, U+2026, where the font has it (DejaVu does; ImGui's built-in font does not).
    const char* dots = ImGui::GetFont()->FindGlyphNoFallback(0x2026) ? "\xe2\x80\xa6" : "...";
    const std::string cut = fitText(text, width - ImGui::CalcTextSize(dots).x);
    return cut.size() < text.size() ? cut + dots : cut;
}

std::string exportPath(const PanelContext& c, const std::string& what, const char* extension) {
    return exportFileName(c.view, c.current, what, extension);
}

void exportPngButton(PanelContext& c, const std::string& what) {
    std::string& written = c.view.pngWritten;
    if (c.exporting) return;
    // At the right end of the current line, or on a line of its own when the line is full.
    const float w = ImGui::CalcTextSize("Export PNG").x + ImGui::GetStyle().FramePadding.x * 2;
    ImGui::SameLine();
    const float avail = ImGui::GetContentRegionAvail().x;
    if (avail < w) ImGui::NewLine();
    else ImGui::SetCursorPosX(ImGui::GetCursorPosX() + avail - w);
    if (ImGui::Button("Export PNG")) {
        written = exportPath(c, what, "png");
        c.exportPanelPng(written);
    }
    if (!written.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("last written: %s", written.c_str());
}

}  // namespace llama::viewer
