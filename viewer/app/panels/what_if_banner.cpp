// The banner that keeps an experiment from being mistaken for the model: the run's what-if
// switches (and, comparing traces, B's), in a colour no other panel uses.
#include <imgui.h>

#include "panels.h"
#include "state/session_controls.h"

namespace llama::viewer {

void drawWhatIfBanner(PanelContext& c) {
    // A live run shown while the Run panel holds other settings: say that only a restart uses them.
    const bool liveRun = !c.replay && c.session.capture() && c.status.state != SessionState::Loading;
    c.view.settingsNotInRun = liveRun ? settingsNotInRun(c.settings, c.session.settings()) : std::vector<std::string>{};
    if (!c.view.settingsNotInRun.empty()) {
        ImGui::PushTextWrapPos(0);
        ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.3f, 1), "%s", settingsNotInRunText(c.view.settingsNotInRun, c.status.state == SessionState::Running || c.status.state == SessionState::Paused).c_str());
        ImGui::PopTextWrapPos();
    }
    const WhatIf w = c.session.settings().whatIf;
    if (w.any())
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.2f, 1), "WHAT-IF EXPERIMENT, not the model's own computation: %s", w.describe().c_str());
    if (auto cmp = c.session.comparison(); cmp && cmp->b.run.whatIf.any())
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.2f, 1), "Compared trace B is a what-if experiment: %s", cmp->b.run.whatIf.describe().c_str());
}

}  // namespace llama::viewer
