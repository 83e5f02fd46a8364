// The chapter section that explains the current stage, read from chapters/ each time the
// stage changes (the chapters are plain Markdown; headings are coloured, the rest wrapped).
#include <imgui.h>

#include <sstream>

#include "state/chapter_text.h"
#include "panels.h"

namespace llama::viewer {

void drawChapterPanel(PanelContext& c) {
    if (!c.current) {
        ImGui::TextDisabled("No stage yet.");
        return;
    }
    static StageId loadedFor{};
    static bool loaded = false;
    static ChapterSection section;
    if (!loaded || loadedFor != c.current->stage) {
        section = chapterSection(c.chaptersDir, c.current->info());
        loadedFor = c.current->stage, loaded = true;
    }
    const StageInfo& info = c.current->info();
    ImGui::Text("Stage %d: %s", info.number, std::string(info.title).c_str());
    ImGui::TextDisabled("%s%s", displayPath(section.path).c_str(),
                        !section.fileFound ? "" : section.anchorFound ? "" : "  (no <!-- stage: KEY --> anchor: the whole file)");
    ImGui::Separator();
    if (!section.fileFound) {
        ImGui::TextWrapped("This chapter is missing: %s was not found. (chapters/ is still being written.)", displayPath(section.path).c_str());
        return;
    }
    ImGui::BeginChild("chapter");
    ImGui::PushTextWrapPos(0);
    std::istringstream in(section.text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("#", 0) == 0) ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.45f, 1), "%s", line.c_str());
        else if (line.rfind("<!--", 0) == 0) continue;
        else ImGui::TextUnformatted(line.c_str());
    }
    ImGui::PopTextWrapPos();
    ImGui::EndChild();
}

}  // namespace llama::viewer
