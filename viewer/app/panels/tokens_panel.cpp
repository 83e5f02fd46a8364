// The token at every position: the prompt as the tokenizer split it, then each generated
// token, with ids; special tokens (<|begin_of_text|>...) marked.
#include <imgui.h>

#include <algorithm>
#include <cstdint>

#include "panels.h"

namespace llama::viewer {

void drawTokensPanel(PanelContext& c) {
    const auto& tokens = c.snap.positionTokens;
    if (tokens.empty()) {
        ImGui::TextDisabled("No tokens yet: they appear at stage 1 (tokenize).");
        return;
    }
    ImGui::Text("%zu prompt tokens, %zu positions so far", c.snap.promptTokens.size(), tokens.size());
    if (ImGui::BeginTable("tokens", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit)) {
        // Widths given up front: a table fits its columns to what earlier frames drew, and an
        // exported panel is drawn in a window of its own for one frame only.
        const float digit = ImGui::CalcTextSize("0").x;
        ImGui::TableSetupColumn("position", ImGuiTableColumnFlags_WidthFixed, digit * 9);
        ImGui::TableSetupColumn("id", ImGuiTableColumnFlags_WidthFixed, digit * 8);
        ImGui::TableSetupColumn("piece", ImGuiTableColumnFlags_WidthFixed, digit * 24);
        ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, digit * 10);
        ImGui::TableHeadersRow();
        const bool haveTokenizer = c.model && c.model->tokenizer;
        // Only the visible rows are drawn: a replayed trace may hold millions of positions.
        ImGuiListClipper clipper;
        clipper.Begin(int(std::min<size_t>(tokens.size(), size_t(INT32_MAX))));
        while (clipper.Step()) {
            for (size_t i = size_t(clipper.DisplayStart); i < size_t(clipper.DisplayEnd); ++i) {
                const int32_t id = tokens[i];
                const bool special = haveTokenizer && c.model->tokenizer->isSpecial(id);
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::Text("%zu", i);
                ImGui::TableNextColumn();
                ImGui::Text("%d", id);
                ImGui::TableNextColumn();
                if (special) ImGui::TextColored(ImVec4(0.6f, 0.8f, 1.0f, 1), "%s", c.piece(id).c_str());
                else ImGui::Text("'%s'", c.piece(id).c_str());
                ImGui::TableNextColumn();
                if (special) ImGui::TextDisabled("special");
                else if (i >= c.snap.promptTokens.size()) ImGui::TextDisabled("generated");
            }
        }
        ImGui::EndTable();
    }
}

}  // namespace llama::viewer
