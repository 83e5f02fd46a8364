#include "state/key_bindings.h"

#include <string>

namespace llama::viewer {

namespace {
bool isFunctionKey(Key k) { return k != Key::Right && k != Key::Space && k != Key::Enter && k != Key::R; }

const char* keyName(Key k) {
    switch (k) {
        case Key::F5: return "F5";
        case Key::F6: return "F6";
        case Key::F8: return "F8";
        case Key::F9: return "F9";
        case Key::F10: return "F10";
        case Key::F11: return "F11";
        case Key::F12: return "F12";
        case Key::Right: return "Right arrow";
        case Key::Space: return "Space";
        case Key::Enter: return "Enter";
        case Key::R: return "R";
    }
    return "";
}
}  // namespace

const std::vector<KeyBinding>& keyBindings() {
    static const std::vector<KeyBinding> bindings = {
        {Action::Step, Key::F10},       {Action::Step, Key::Right},
        {Action::Step, Key::Space},     {Action::StepLayer, Key::F11},
        {Action::StepLayer, Key::Right, true},  {Action::StepToken, Key::F12},
        {Action::StepToken, Key::Right, false, true}, {Action::Continue, Key::F8},
        {Action::Continue, Key::Enter}, {Action::Run, Key::F5},
        {Action::Pause, Key::F6},       {Action::Stop, Key::F5, true},
        {Action::Restart, Key::F5, false, true}, {Action::Restart, Key::R, false, true},
        {Action::ToggleBreakpoint, Key::F9}, {Action::ToggleLayerBreakpoint, Key::F9, true},
    };
    return bindings;
}

std::string keyText(const KeyBinding& b) {
    return std::string(b.ctrl ? "Ctrl+" : "") + (b.shift ? "Shift+" : "") + keyName(b.key);
}

std::optional<Action> actionForKey(Key key, bool shift, bool ctrl, bool typing) {
    // In the prompt box, arrows, Space, Enter and Ctrl+R edit text; function keys never do.
    if (typing && !isFunctionKey(key)) return std::nullopt;
    for (const auto& b : keyBindings())
        if (b.key == key && b.shift == shift && b.ctrl == ctrl) return b.action;
    return std::nullopt;
}

}  // namespace llama::viewer
