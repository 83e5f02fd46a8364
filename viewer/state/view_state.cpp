#include "state/view_state.h"

#include <algorithm>

namespace llama::viewer {

namespace {
struct PanelName {
    Panel panel;
    const char* title;
    const char* key;
};
constexpr PanelName kPanels[] = {
    {Panel::Map, "Map", "map"},
    {Panel::Shapes, "Shapes", "shapes"},       {Panel::Heatmap, "Tensor heatmap", "heatmap"},
    {Panel::Mask, "Mask", "mask"},             {Panel::Attention, "Attention", "attention"},
    {Panel::Logits, "Top logits", "logits"},   {Panel::Lens, "Logit lens", "lens"},
    {Panel::KvCache, "KV cache", "kv-cache"},  {Panel::Tokens, "Tokens", "tokens"},
    {Panel::Compare, "Compare", "compare"},    {Panel::Chapter, "Chapter", "chapter"},
    {Panel::Batch, "Batch", "batch"},
    {Panel::Patching, "Patching", "patching"},
};

bool sameBreakpoint(const Breakpoint& b, StageId stage, std::optional<int> layer) {
    return b.stage == stage && b.layer == layer && !b.step;
}
}  // namespace

const std::vector<Panel>& allPanels() {
    static const std::vector<Panel> panels = [] {
        std::vector<Panel> v;
        for (const auto& p : kPanels) v.push_back(p.panel);
        return v;
    }();
    return panels;
}

const char* panelTitle(Panel p) { return kPanels[int(p)].title; }
const char* panelKey(Panel p) { return kPanels[int(p)].key; }

std::optional<Panel> panelFromKey(std::string_view key) {
    for (const auto& p : kPanels)
        if (key == p.key) return p.panel;
    return std::nullopt;
}

namespace {
constexpr const char* kKeyNames[] = {"F5", "F6", "F8", "F9", "F10", "F11", "F12", "Right", "Space", "Enter", "R", "PageDown"};
}  // namespace

std::string keyChordName(const KeyChord& k) {
    return std::string(k.ctrl ? "Ctrl+" : "") + (k.shift ? "Shift+" : "") + kKeyNames[int(k.key)];
}

std::optional<KeyChord> keyChordFromName(const std::string& name) {
    KeyChord chord{Key::F5};
    std::string_view rest = name;
    for (bool more = true; more;) {
        more = false;
        if (rest.starts_with("Ctrl+")) chord.ctrl = true, rest.remove_prefix(5), more = true;
        if (rest.starts_with("Shift+")) chord.shift = true, rest.remove_prefix(6), more = true;
    }
    for (size_t i = 0; i < std::size(kKeyNames); ++i)
        if (rest == kKeyNames[i]) return chord.key = Key(i), chord;
    return std::nullopt;
}

std::optional<Action> ActionQueue::next(uint64_t holds, bool active) {
    if (queue_.empty()) return std::nullopt;
    const Action a = queue_.front();
    const bool stepping = a == Action::Step || a == Action::StepLayer || a == Action::StepToken || a == Action::Continue;
    if (stepping && waitingFrom_ && active && holds <= *waitingFrom_) return std::nullopt;  // the last step has not arrived yet
    queue_.pop_front();
    if (stepping) waitingFrom_ = holds;
    if (a == Action::Stop || a == Action::Restart) queue_.clear();  // what was pressed before them no longer applies
    return a;
}

bool isFunctionKey(Key k) { return k <= Key::F12; }

bool actsWhileTyping(const KeyChord& k) { return isFunctionKey(k.key) || (k.ctrl && !k.shift && k.key == Key::R); }

const std::vector<ActionInfo>& actionInfos() {
    // Debugger-style function keys never collide with typing in the prompt box; the arrows,
    // Space, Enter and Ctrl+R are there because laptops need Fn for F-keys and desktops take
    // F10/F11 themselves.
    using K = Key;
    static const std::vector<ActionInfo> infos = {
        {Action::Run, "Run", {{K::F5}}, "start, or resume, and run to the end ignoring breakpoints"},
        {Action::Continue, "Continue", {{K::F8}, {K::Enter}}, "run to the next breakpoint (starts a run if none is going)"},
        {Action::Pause, "Pause", {{K::F6}}, "hold the engine at the next stage"},
        {Action::Step, "Step", {{K::F10}, {K::Right}, {K::Space}, {K::PageDown}}, "the next stage (PageDown: a presenter's clicker)"},
        {Action::StepLayer, "Step layer", {{K::F11}, {K::Right, false, true}}, "the first stage of the next layer"},
        {Action::StepToken, "Step token", {{K::F12}, {K::Right, true}}, "the next token: where its logits and logit lens exist (stage 19)"},
        {Action::Stop, "Stop", {{K::F5, false, true}}, "end the run"},
        {Action::Restart, "Restart", {{K::F5, true}, {K::R, true}}, "start again, held at the first stage"},
        {Action::ToggleBreakpoint, "Breakpoint", {{K::F9}}, "toggle a breakpoint at the selected stage (every layer)"},
        {Action::ToggleLayerBreakpoint, "Layer breakpoint", {{K::F9, false, true}}, "toggle a breakpoint at the selected stage in its layer only"},
    };
    return infos;
}

const ActionInfo& actionInfo(Action a) { return actionInfos()[size_t(a)]; }

std::string shortcutText(const ActionInfo& a) {
    std::string out;
    for (const KeyChord& k : a.keys) out += (out.empty() ? "" : ", ") + keyChordName(k);
    return out;
}

std::optional<Action> actionForKey(const KeyChord& chord) {
    for (const auto& a : actionInfos())
        if (std::find(a.keys.begin(), a.keys.end(), chord) != a.keys.end()) return a.action;
    return std::nullopt;
}

bool hasBreakpoint(const std::vector<Breakpoint>& breakpoints, StageId stage, std::optional<int> layer) {
    return std::any_of(breakpoints.begin(), breakpoints.end(), [&](const Breakpoint& b) { return sameBreakpoint(b, stage, layer); });
}

bool toggleBreakpoint(std::vector<Breakpoint>& breakpoints, StageId stage, std::optional<int> layer) {
    if (hasBreakpoint(breakpoints, stage, layer)) {
        std::erase_if(breakpoints, [&](const Breakpoint& b) { return sameBreakpoint(b, stage, layer); });
        return false;
    }
    breakpoints.push_back({stage, layer, std::nullopt});
    return true;
}

void selectPatchCell(ViewState& view, const PatchGrid& grid, const TraceRun& clean, PatchCell cell) {
    view.patchCell = cell;
    if (const auto index = patchStageIndex(grid, clean, cell.layer)) view.selectedRecord = *index;
}

}  // namespace llama::viewer
