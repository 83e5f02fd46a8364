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

const std::vector<ActionInfo>& actionInfos() {
    // Debugger-style function keys: they never collide with typing in the prompt box.
    static const std::vector<ActionInfo> infos = {
        {Action::Run, "Run", "F5", "start, or resume, and run to the end ignoring breakpoints"},
        {Action::Continue, "Continue", "F8", "run to the next breakpoint"},
        {Action::Pause, "Pause", "F6", "hold the engine at the next stage"},
        {Action::Step, "Step", "F10", "the next stage"},
        {Action::StepLayer, "Step layer", "F11", "the first stage of the next layer"},
        {Action::StepToken, "Step token", "F12", "the start of the next token step"},
        {Action::Stop, "Stop", "Shift+F5", "end the run"},
        {Action::Restart, "Restart", "Ctrl+F5", "start again, held at the first stage"},
        {Action::ToggleBreakpoint, "Breakpoint", "F9", "toggle a breakpoint at the selected stage (every layer)"},
        {Action::ToggleLayerBreakpoint, "Layer breakpoint", "Shift+F9", "toggle a breakpoint at the selected stage in its layer only"},
    };
    return infos;
}

const ActionInfo& actionInfo(Action a) { return actionInfos()[size_t(a)]; }

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

}  // namespace llama::viewer
