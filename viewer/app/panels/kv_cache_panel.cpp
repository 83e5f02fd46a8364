// How full each layer's KV cache is: positions written so far out of the context length, the
// positions this step writes highlighted, and where the next token goes.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>

#include "panels.h"

namespace llama::viewer {

void drawKvCachePanel(PanelContext& c) {
    if (!c.model || !c.current) {
        ImGui::TextDisabled("No run yet.");
        return;
    }
    const ModelArgs& a = c.model->args;
    const int step = c.current->step;
    // Filled = the end of the last cache_write of each layer up to the shown stage.
    std::vector<int> filled(size_t(a.n_layers), 0), writtenFrom(size_t(a.n_layers), -1);
    for (const auto& r : c.snap.records) {
        if (r->index > c.current->index) break;
        if (r->stage != StageId::CacheWrite || r->layer < 0 || r->layer >= a.n_layers) continue;
        filled[size_t(r->layer)] = r->startPos + r->seqLen;
        writtenFrom[size_t(r->layer)] = r->step == step ? r->startPos : -1;
    }
    const int total = *std::max_element(filled.begin(), filled.end());
    ImGui::TextWrapped("Context length %d positions; each layer caches K and V: [%d, N_KVHeads %d, HeadDim %d] BF16 (%.1f KB per position, all layers)",
                a.max_seq_len, a.max_seq_len, a.n_kv_heads, a.headDim(), 2.0 * a.n_layers * a.n_kv_heads * a.headDim() * 2 / 1024.0);
    ImGui::Text("Step %d: startPos %d, writing %d position(s). Grey: cached before; orange: written this step.", step,
                c.current->startPos, c.current->seqLen);
    // The bars show the first positions (the whole context would make the fill invisible).
    const int window = std::min(a.max_seq_len, std::max(32, (total + 15) / 16 * 16 + 16));
    ImGui::TextDisabled("showing positions 0..%d of %d", window - 1, a.max_seq_len);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float font = ImGui::GetFontSize();
    const float labelW = font * 4.5f, barW = ImGui::GetContentRegionAvail().x - labelW - font * 7;
    const float cell = barW / float(window);
    // One line per layer, only the lines in sight (a model may have up to 1024 layers).
    ImGuiListClipper clipper;
    clipper.Begin(a.n_layers);
    while (clipper.Step())
        for (int L = clipper.DisplayStart; L < clipper.DisplayEnd; ++L) {
            ImVec2 p = ImGui::GetCursorScreenPos();
            dl->AddText(p, ImGui::GetColorU32(ImGuiCol_Text), layerLabel(L).c_str());
            // Three runs of positions, one rectangle each (a cell per position would be millions of
            // rectangles at a 16M context, past what one ImGui draw list can index).
            const int written = std::min(filled[size_t(L)], window), from = writtenFrom[size_t(L)] >= 0 ? std::min(writtenFrom[size_t(L)], written) : written;
            auto run = [&](int begin, int end, ImU32 col) {
                if (end <= begin) return;
                dl->AddRectFilled(ImVec2(p.x + labelW + cell * float(begin), p.y + 2), ImVec2(p.x + labelW + cell * float(end) - 1, p.y + font - 1), col);
            };
            run(0, from, IM_COL32(150, 150, 160, 255));
            run(from, written, IM_COL32(240, 160, 40, 255));
            run(written, window, IM_COL32(50, 50, 58, 255));
            dl->AddText(ImVec2(p.x + labelW + barW + font * 0.5f, p.y), ImGui::GetColorU32(ImGuiCol_Text),
                        fmt::format("{} / {}", filled[size_t(L)], a.max_seq_len).c_str());
            ImGui::Dummy(ImVec2(labelW + barW + font * 7, font + 2));
        }
}

}  // namespace llama::viewer
