// Token steps -> layers -> stages, numbered and titled as in the stage catalog. The engine's
// current stage is highlighted; clicking any captured stage shows it in the other panels.
#include <imgui.h>

#include <fmt/format.h>

#include "panels.h"
#include "state/timeline.h"

namespace llama::viewer {

namespace {
void stageRow(PanelContext& c, int index, bool reveal) {
    const StageRecord& r = *c.snap.records[size_t(index)];
    const StageInfo& info = r.info();
    bool isLive = c.live && c.live->index == index;
    bool isShown = c.current && c.current->index == index;
    bool bp = hasBreakpoint(c.session.breakpoints(), r.stage, std::nullopt) || hasBreakpoint(c.session.breakpoints(), r.stage, r.layer);
    // A row wider than the region (UI scale 2 on a laptop) is cut with "...", whole in the tooltip.
    const std::string text = fmt::format("{}{:>2} {}", bp ? "\xe2\x97\x8f " : "   ", info.number, info.title);  // ● marks a breakpoint
    const std::string label = elided(text, ImGui::GetContentRegionAvail().x) + fmt::format("##r{}", index);
    if (isLive) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.3f, 1));
    if (ImGui::Selectable(label.c_str(), isShown)) c.view.selectedRecord = (isLive ? -1 : index);
    if (isLive) ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%d %s\n%s\n%s", info.number, std::string(info.title).c_str(), std::string(info.key).c_str(), r.message.c_str());
    if (isShown && reveal) ImGui::SetScrollHereY(0.5f);  // follow the engine
}
}  // namespace

void drawTimelinePanel(PanelContext& c) {
    if (c.snap.records.empty()) {
        ImGui::TextDisabled("No stages yet: Step (F10) starts a run held at stage 1.");
        return;
    }
    if (c.view.selectedRecord >= 0) {
        if (ImGui::SmallButton("Follow the engine")) c.view.selectedRecord = -1;
        ImGui::SameLine();
        ImGui::TextDisabled("showing an earlier stage");
    }
    ImGui::BeginChild("timeline");
    // Extended by what was captured since the last frame; rebuilt for a new run.
    c.caches.timeline.update(c.snap.records, c.snap.run);
    const std::vector<TimelineStep>& steps = c.caches.timeline.steps;
    const auto trace = c.session.trace();  // a batch trace titles each step by its ubatch
    // Open and scroll to the shown stage when it changes; otherwise the learner's folding stays.
    const bool reveal = c.current && c.current->index != c.view.timelineRevealed;
    if (c.current) c.view.timelineRevealed = c.current->index;
    const int shownStep = c.current ? c.current->step : -1;
    const int shownLayer = c.current ? c.current->layer : -1;
    // A tree node's title, cut to the region's width (the tooltip has it whole); "###" keeps its
    // open state whatever part of the title shows.
    auto node = [](const std::string& title, const std::string& id) {
        const float room = ImGui::GetContentRegionAvail().x - ImGui::GetTreeNodeToLabelSpacing();
        const bool open = ImGui::TreeNode((elided(title, room) + "###" + id).c_str());
        if (ImGui::IsItemHovered() && ImGui::CalcTextSize(title.c_str()).x > room) ImGui::SetTooltip("%s", title.c_str());
        return open;
    };
    auto drawStep = [&](const TimelineStep& s) {
        const std::string title = timelineStepTitle(s, c.snap, trace.get());
        if (reveal && s.step == shownStep) ImGui::SetNextItemOpen(true);
        if (!node(title, fmt::format("step{}", s.step))) return;
        for (int i : s.before) stageRow(c, i, reveal);
        for (size_t L = 0; L < s.layers.size(); ++L) {
            if (s.layers[L].empty()) continue;
            if (reveal && s.step == shownStep && int(L) == shownLayer) ImGui::SetNextItemOpen(true);
            if (node(timelineLayerTitle(int(L)), fmt::format("s{}L{}", s.step, L))) {
                for (int i : s.layers[L]) stageRow(c, i, reveal);
                ImGui::TreePop();
            }
        }
        for (int i : s.after) stageRow(c, i, reveal);
        ImGui::TreePop();
    };
    auto isOpen = [&](const TimelineStep& s) {
        return (reveal && s.step == shownStep) || ImGui::GetStateStorage()->GetInt(ImGui::GetID(fmt::format("###step{}", s.step).c_str())) != 0;
    };
    // Closed steps are one line each: a clipper draws only those in sight, so a run of thousands
    // of token steps costs the lines the region holds plus the open steps' rows.
    for (size_t i = 0; i < steps.size();) {
        size_t j = i;
        while (j < steps.size() && !isOpen(steps[j])) ++j;
        if (j == i) {
            drawStep(steps[i++]);
            continue;
        }
        ImGuiListClipper clipper;
        clipper.Begin(int(j - i));
        while (clipper.Step())
            for (int k = clipper.DisplayStart; k < clipper.DisplayEnd; ++k) drawStep(steps[i + size_t(k)]);
        i = j;
    }
    ImGui::EndChild();
}

}  // namespace llama::viewer
