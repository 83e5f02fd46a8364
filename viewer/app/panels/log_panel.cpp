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
    const std::vector<std::string>& lines = c.caches.log.lines;
    const bool atBottom = ImGui::GetScrollY() >= ImGui::GetScrollMaxY() - 1;
    ImGuiListClipper clipper;
    clipper.Begin(int(lines.size()));
    while (clipper.Step())
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
            ImGui::TextUnformatted(lines[size_t(i)].c_str());
            // A line longer than the region reads whole on hover (wrapping would end the clipper's equal rows).
            if (ImGui::IsItemHovered() && ImGui::GetItemRectMax().x > ImGui::GetWindowPos().x + ImGui::GetWindowWidth())
                ImGui::SetTooltip("%s", lines[size_t(i)].c_str());
        }
    clipper.End();
    if (atBottom) ImGui::SetScrollHereY(1.0f);  // keep following the tail unless the learner scrolled up
}

}  // namespace llama::viewer
