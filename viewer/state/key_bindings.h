#pragma once
// The keys that drive the viewer: the debugger's function keys and, for laptops where F-keys
// need Fn (and desktops that take F10/F11), plain alternatives. One table for the shortcuts
// and the help overlay (`?`) that lists them.
#include <optional>
#include <vector>

#include "state/view_state.h"

namespace llama::viewer {

enum class Key { F5, F6, F8, F9, F10, F11, F12, Right, Space, Enter, R };

struct KeyBinding {
    Action action;
    Key key;
    bool shift = false, ctrl = false;
};

const std::vector<KeyBinding>& keyBindings();
// "Ctrl+Right"
std::string keyText(const KeyBinding& b);
// The action of a key press with these modifiers; alternatives are ignored while typing.
std::optional<Action> actionForKey(Key key, bool shift, bool ctrl, bool typing);

}  // namespace llama::viewer
