// The banner that keeps an experiment from being mistaken for the model: the run's what-if
// switches (and, comparing traces, B's), in a colour no other panel uses.
#include <imgui.h>

#include "panels.h"

namespace llama::viewer {

void drawWhatIfBanner(PanelContext& c) {
    const WhatIf w = c.session.settings().whatIf;
    if (w.any())
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.2f, 1), "WHAT-IF EXPERIMENT, not the model's own computation: %s", w.describe().c_str());
    if (auto cmp = c.session.comparison(); cmp && cmp->b.run.whatIf.any())
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.2f, 1), "Compared trace B is a what-if experiment: %s", cmp->b.run.whatIf.describe().c_str());
}

}  // namespace llama::viewer
