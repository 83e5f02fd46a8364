// The generated text as it streams in (complete UTF-8 characters only, as the CLI prints it).
#include <imgui.h>

#include <fmt/format.h>

#include <string_view>

#include "panels.h"
#include "state/session_controls.h"

namespace llama::viewer {

void drawOutputPanel(PanelContext& c) {
    // The prompt in grey, then what the model wrote; one wrapped block each (ImGui cannot
    // continue a wrapped line in another colour).
    ImGui::PushTextWrapPos(0);
    const RunSettings ran = outputSettings(c.session, c.settings);
    // Wrapped text is laid out whole every frame, so only the last 16 KB of each is shown (a
    // replayed trace's text may be megabytes); the cut is said and falls between characters.
    auto tail = [](const std::string& text, std::string& note) {
        constexpr size_t kShown = 16 * 1024;
        if (text.size() <= kShown) return std::string_view(text);
        size_t from = text.size() - kShown;
        while (from < text.size() && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) ++from;
        note = fmt::format("(the first {} bytes are not shown)", from);
        return std::string_view(text).substr(from);
    };
    std::string promptNote, textNote;
    const std::string_view prompt = tail(ran.prompt, promptNote), text = tail(c.snap.text, textNote);
    if (!promptNote.empty()) ImGui::TextDisabled("%s", promptNote.c_str());
    ImGui::TextDisabled("%s%.*s", ran.mode == PromptMode::Chat ? "user: " : "", int(prompt.size()), prompt.data());
    if (!textNote.empty()) ImGui::TextDisabled("%s", textNote.c_str());
    ImGui::TextUnformatted(text.data(), text.data() + text.size());
    ImGui::PopTextWrapPos();
    if (c.model && c.model->randomWeights) ImGui::TextDisabled("(random weights: gibberish is expected)");
    if (c.status.state == SessionState::Running && ImGui::GetScrollY() >= ImGui::GetScrollMaxY()) ImGui::SetScrollHereY(1.0f);
}

}  // namespace llama::viewer
