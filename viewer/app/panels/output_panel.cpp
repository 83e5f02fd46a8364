// The generated text as it streams in (complete UTF-8 characters only, as the CLI prints it).
#include <imgui.h>

#include "panels.h"

namespace llama::viewer {

void drawOutputPanel(PanelContext& c) {
    // The prompt in grey, then what the model wrote; one wrapped block each (ImGui cannot
    // continue a wrapped line in another colour).
    ImGui::PushTextWrapPos(0);
    const RunSettings ran = c.session.settings();
    ImGui::TextDisabled("%s%s", ran.mode == PromptMode::Chat ? "user: " : "", ran.prompt.c_str());
    ImGui::TextUnformatted(c.snap.text.c_str());
    ImGui::PopTextWrapPos();
    if (c.model && c.model->randomWeights) ImGui::TextDisabled("(random weights: gibberish is expected)");
    if (c.status.state == SessionState::Running && ImGui::GetScrollY() >= ImGui::GetScrollMaxY()) ImGui::SetScrollHereY(1.0f);
}

}  // namespace llama::viewer
