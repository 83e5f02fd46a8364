// The tail of the debug log: the events' messages in the walkthrough's words, newest last.
// Lines are not wrapped so the clipper draws only the visible ones: the log grows by hundreds
// of lines a second while a model computes, and the window must stay responsive.
#include <imgui.h>

#include <fmt/format.h>

#include <sstream>

#include "panels.h"

namespace llama::viewer {

void drawLogPanel(PanelContext& c) {
    c.caches.log.update(c.snap.records, c.snap.version);
    // Wrapped to the region's width once per change (rows of equal height, so the clipper still
    // lays out only what is in sight).
    ImFont* font = ImGui::GetFont();
    const float scale = ImGui::GetFontSize() / font->FontSize;
    c.caches.log.wrap(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize(), [&](std::string_view text, float width) {
        return size_t(font->CalcWordWrapPositionA(scale, text.data(), text.data() + text.size(), std::max(width, 1.0f)) - text.data());
    });
    const std::vector<std::string>& rows = c.caches.log.rows;
    const bool atBottom = ImGui::GetScrollY() >= ImGui::GetScrollMaxY() - 1;
    ImGuiListClipper clipper;
    clipper.Begin(int(rows.size()));
    while (clipper.Step())
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) ImGui::TextUnformatted(rows[size_t(i)].c_str());
    clipper.End();
    if (atBottom) ImGui::SetScrollHereY(1.0f);  // keep following the tail unless the learner scrolled up
}

}  // namespace llama::viewer
