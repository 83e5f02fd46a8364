// The tail of the debug log: the events' messages in the walkthrough's words, newest last.
// Lines are not wrapped so the clipper draws only the visible ones: the log grows by hundreds
// of lines a second while a model computes, and the window must stay responsive.
#include <imgui.h>

#include <fmt/format.h>

#include <sstream>

#include "panels.h"

namespace llama::viewer {

void drawLogPanel(PanelContext& c) {
    constexpr size_t kTailRecords = 400;
    static std::vector<std::string> lines;
    static uint64_t builtFor = 0;
    if (builtFor != c.snap.version) {
        lines.clear();
        const auto& records = c.snap.records;
        for (size_t i = records.size() > kTailRecords ? records.size() - kTailRecords : 0; i < records.size(); ++i) {
            const StageRecord& r = *records[i];
            const std::string where = logLinePrefix(r);
            std::istringstream in(r.message);
            std::string line;
            for (bool first = true; std::getline(in, line); first = false) lines.push_back((first ? where : std::string(where.size(), ' ')) + line);
        }
        builtFor = c.snap.version;
    }
    const bool atBottom = ImGui::GetScrollY() >= ImGui::GetScrollMaxY() - 1;
    ImGuiListClipper clipper;
    clipper.Begin(int(lines.size()));
    while (clipper.Step())
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) ImGui::TextUnformatted(lines[size_t(i)].c_str());
    clipper.End();
    if (atBottom) ImGui::SetScrollHereY(1.0f);  // keep following the tail unless the learner scrolled up
}

}  // namespace llama::viewer
