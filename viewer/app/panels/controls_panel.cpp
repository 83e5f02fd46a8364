// The run's settings (prompt, sampling, max tokens), the stepping buttons with their shortcuts,
// the engine's state and the breakpoints.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <fmt/format.h>

#include <functional>
#include <utility>
#include <vector>

#include "generate/json_grammar.h"
#include "panels.h"

namespace llama::viewer {

namespace {
// Fields side by side, their widths chosen so that they and their labels fill the region's width
// (none clipped at its right edge), or one a line where side by side each would keep under 6 em.
void fieldRow(const std::vector<std::pair<const char*, std::function<void()>>>& fields) {
    const ImGuiStyle& style = ImGui::GetStyle();
    // A margin on the right: the region's border clips what ends exactly at its edge.
    const float w = ImGui::GetContentRegionAvail().x - style.ItemSpacing.x, n = float(fields.size());
    auto labelW = [&](const char* label) { return ImGui::CalcTextSize(label, nullptr, true).x + style.ItemInnerSpacing.x; };
    float labels = 0;
    for (const auto& f : fields) labels += labelW(f.first);
    const float each = (w - labels - style.ItemSpacing.x * (n - 1)) / n;
    const bool sideBySide = each >= ImGui::GetFontSize() * 6;
    for (size_t i = 0; i < fields.size(); ++i) {
        if (sideBySide && i) ImGui::SameLine();
        ImGui::SetNextItemWidth(sideBySide ? each : w - labelW(fields[i].first));
        fields[i].second();
    }
}

void promptSettings(PanelContext& c) {
    RunSettings& s = c.settings;
    int mode = s.mode == PromptMode::Chat ? 0 : 1;
    ImGui::RadioButton("chat", &mode, 0);
    ImGui::SameLine();
    ImGui::RadioButton("completion", &mode, 1);
    s.mode = mode == 0 ? PromptMode::Chat : PromptMode::Completion;
    const float w = ImGui::GetContentRegionAvail().x;
    if (s.mode == PromptMode::Chat) ImGui::InputTextMultiline("##system", &s.system, ImVec2(w, ImGui::GetFontSize() * 2.5f));
    if (s.mode == PromptMode::Chat && ImGui::IsItemHovered()) ImGui::SetTooltip("system prompt");
    ImGui::InputTextMultiline("##prompt", &s.prompt, ImVec2(w, ImGui::GetFontSize() * 3.2f));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip(s.mode == PromptMode::Chat ? "user message" : "text to continue");

    fieldRow({{"temperature", [&] { ImGui::InputFloat("temperature", &s.sampling.temperature, 0.1f, 0.5f, "%.2f"); }},
              {"top-k", [&] { ImGui::InputInt("top-k", &s.sampling.topK); }}});
    s.sampling.temperature = std::max(0.0f, s.sampling.temperature);
    s.sampling.topK = std::max(0, s.sampling.topK);
    fieldRow({{"top-p", [&] { ImGui::SliderFloat("top-p", &s.sampling.topP, 0.05f, 1.0f, "%.2f"); }},
              {"min-p", [&] { ImGui::SliderFloat("min-p", &s.sampling.minP, 0.0f, 1.0f, "%.2f"); }},
              {"seed", [&] {
                   int seed = int(s.sampling.seed);
                   if (ImGui::InputInt("seed", &seed)) s.sampling.seed = uint64_t(std::max(0, seed));
               }}});
    ImGui::PushItemWidth(w * 0.3f);
    // Repetition penalties (generate/sampler.h), kept inside the ranges the sampler accepts.
    ImGui::InputFloat("repeat penalty", &s.sampling.repeatPenalty, 0.05f, 0.2f, "%.2f");
    s.sampling.repeatPenalty = std::clamp(s.sampling.repeatPenalty, 0.05f, 10.0f);
    ImGui::InputInt("penalty window", &s.sampling.repeatLastN);
    s.sampling.repeatLastN = std::max(-1, s.sampling.repeatLastN);
    ImGui::InputFloat("frequency penalty", &s.sampling.frequencyPenalty, 0.1f, 0.5f, "%.2f");
    s.sampling.frequencyPenalty = std::clamp(s.sampling.frequencyPenalty, -10.0f, 10.0f);
    ImGui::InputFloat("presence penalty", &s.sampling.presencePenalty, 0.1f, 0.5f, "%.2f");
    s.sampling.presencePenalty = std::clamp(s.sampling.presencePenalty, -10.0f, 10.0f);
    ImGui::InputInt("max tokens", &s.maxTokens);
    s.maxTokens = std::clamp(s.maxTokens, 1, 4096);
    ImGui::PopItemWidth();
    if (s.sampling.temperature <= 0) ImGui::TextDisabled("temperature 0: greedy (argmax), top-k/top-p/min-p unused");
    ImGui::Checkbox("logit lens", &s.lens);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("after every block: one more output projection per layer (slow on large models)");
    ImGui::SameLine();
    ImGui::Checkbox("record a trace", &s.recordTrace);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the run's own trace, in the temporary folder: File > Save trace keeps it, Compare pairs it with another");
}

// A button's label with every key, with the first key (F10), or bare (the keys on hover).
std::string buttonLabel(const ActionInfo& a, int keys) {
    if (keys == 2) return fmt::format("{} ({})", a.label, shortcutText(a));
    if (keys == 1) return fmt::format("{} ({})", a.label, keyChordName(a.keys.front()));
    return a.label;
}

void buttons(PanelContext& c) {
    // Wrapped to the panel's width; the labels as long as lets every button fit the region's
    // height without scrolling, so all of them stay in sight at any UI scale.
    const float left = ImGui::GetCursorScreenPos().x, right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    const ImGuiStyle& style = ImGui::GetStyle();
    std::vector<const ActionInfo*> shown;
    for (const auto& a : actionInfos())
        if (a.action != Action::ToggleBreakpoint && a.action != Action::ToggleLayerBreakpoint) shown.push_back(&a);
    auto width = [&](const ActionInfo& a, int keys) { return ImGui::CalcTextSize(buttonLabel(a, keys).c_str()).x + style.FramePadding.x * 2; };
    auto rows = [&](int keys) {
        int n = 1;
        for (float x = left; const ActionInfo* a : shown) {
            const float w = width(*a, keys);
            if (w > right - left) return 1000;  // a button wider than the region: this length does not fit
            if (x > left && x + w > right) ++n, x = left;
            x += w + style.ItemSpacing.x;
        }
        return n;
    };
    int keys = 2;
    while (keys > 0 && float(rows(keys)) * ImGui::GetFrameHeightWithSpacing() > ImGui::GetContentRegionAvail().y) --keys;
    bool first = true, allInSight = true;
    const float bottom = ImGui::GetWindowPos().y + ImGui::GetWindowHeight();
    for (const ActionInfo* a : shown) {
        const std::string label = buttonLabel(*a, keys);
        if (!first) {
            ImGui::SameLine();
            if (ImGui::GetCursorScreenPos().x + width(*a, keys) > right) ImGui::NewLine();
        }
        first = false;
        if (ImGui::Button(label.c_str())) c.perform(a->action);
        const bool inSight = ImGui::IsItemVisible() && ImGui::GetItemRectMax().y <= bottom && ImGui::GetItemRectMax().x <= right + 1;
        allInSight = allInSight && inSight;
        if (a->action == Action::Step) c.view.stepButtonInSight = ImGui::IsItemVisible();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s (%s)", a->help, shortcutText(*a).c_str());
    }
    c.view.runButtonsInSight = allInSight;
}

void status(PanelContext& c) {
    const SessionStatus& s = c.status;
    ImVec4 colour = s.state == SessionState::Paused ? ImVec4(1, 0.8f, 0.3f, 1)
                    : s.state == SessionState::Running ? ImVec4(0.4f, 1, 0.4f, 1)
                    : s.state == SessionState::Failed ? ImVec4(1, 0.4f, 0.4f, 1)
                                                      : ImVec4(0.8f, 0.8f, 0.8f, 1);
    ImGui::TextColored(colour, "%s", stateName(s.state));
    if (s.held) {
        // Where it is held, on the state's line, ending in an ellipsis in a narrow region (whole on hover).
        const StageInfo& info = stageInfo(s.held->stage);
        const std::string where = fmt::format("at {} {} {} | step {}", info.number, info.title, heldLayerLabel(s.held->layer), s.held->step);
        ImGui::SameLine();
        ImGui::TextUnformatted(elided(where, ImGui::GetContentRegionAvail().x).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", where.c_str());
    }
    // One line, whatever its length: a status that wrapped would move every field below it while
    // the learner reaches for one (the whole message on hover).
    if (!s.message.empty()) {
        ImGui::TextUnformatted(elided(s.message, ImGui::GetContentRegionAvail().x).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.message.c_str());
    }
    // --no-kv-cache's agreement: the same run with the cache, beside this one in the Compare panel.
    if (s.state == SessionState::Finished && !c.replay && c.session.settings().whatIf.noKvCache) {
        if (c.session.recordedTrace().empty()) ImGui::TextDisabled("\"record a trace\" on, then run again, to compare it with the same run using the KV cache");
        else if (ImGui::Button("Compare with the same run using the KV cache")) c.checkKvCache();
    }
    ImGui::TextDisabled("%.0f fps", c.fps);
}

// The next run's experiment (model/what_if.h): off by default, shown in the banner when on.
void whatIfSettings(PanelContext& c) {
    WhatIf& w = c.settings.whatIf;
    const int layers = c.model ? c.model->args.n_layers : 1, heads = c.model ? c.model->args.n_heads : 1;
    ImGui::Checkbox("no mask", &w.noMask);
    ImGui::SameLine();
    ImGui::Checkbox("no KV cache", &w.noKvCache);
    ImGui::SameLine();
    ImGui::Checkbox("no RoPE", &w.noRope);
    // --compute-dtype: the model's own choice, or activations in BF16 or F32.
    int dtype = !w.computeDType ? 0 : *w.computeDType == DType::BF16 ? 1 : 2;
    ImGui::TextUnformatted("compute dtype:");
    ImGui::SameLine();
    ImGui::RadioButton("the model's", &dtype, 0);
    ImGui::SameLine();
    ImGui::RadioButton("BF16", &dtype, 1);
    ImGui::SameLine();
    ImGui::RadioButton("F32", &dtype, 2);
    w.computeDType = dtype == 0 ? std::nullopt : std::optional<DType>(dtype == 1 ? DType::BF16 : DType::F32);
    bool theta = w.ropeTheta.has_value();
    if (ImGui::Checkbox("RoPE theta", &theta)) w.ropeTheta = theta ? std::optional<double>(10000.0) : std::nullopt;
    if (w.ropeTheta) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
        ImGui::InputDouble("##theta", &*w.ropeTheta, 0, 0, "%.0f");
        w.ropeTheta = std::max(2.0, *w.ropeTheta);
    }
    // Every skipped layer and ablated head, each with its remove button, then the next one to add
    // (1-based, as on the command line). Only a click changes them (state/what_if_editor.h).
    WhatIfDraft& draft = c.view.whatIfDraft;
    WhatIfEdit edit;
    auto removable = [&](const std::string& label, WhatIfEdit::Kind kind, int layer, int head) {
        ImGui::SameLine();
        if (ImGui::SmallButton(fmt::format("{} x##{}-{}", label, layer, head).c_str())) edit = {kind, layer, head};
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("remove");
    };
    ImGui::TextUnformatted("skipped layers:");
    if (w.skipLayers.empty()) ImGui::SameLine(), ImGui::TextDisabled("none");
    for (int layer : w.skipLayers) removable(std::to_string(layerNumber(layer)), WhatIfEdit::Kind::RemoveSkip, layer, 0);
    ImGui::TextUnformatted("ablated heads:");
    if (w.ablateHeads.empty()) ImGui::SameLine(), ImGui::TextDisabled("none");
    for (auto [layer, head] : w.ablateHeads)
        removable(fmt::format("{}:{}", layerNumber(layer), headNumber(head)), WhatIfEdit::Kind::RemoveAblation, layer, head);
    ImGui::PushItemWidth(ImGui::GetFontSize() * 5);
    ImGui::InputInt("##skip", &draft.skipLayer);
    ImGui::SameLine();
    if (ImGui::Button("Skip layer")) edit.kind = WhatIfEdit::Kind::AddSkip;
    ImGui::InputInt("##ablateLayer", &draft.ablateLayer);
    ImGui::SameLine();
    ImGui::InputInt("##ablateHead", &draft.ablateHead);
    ImGui::SameLine();
    if (ImGui::Button("Ablate layer:head")) edit.kind = WhatIfEdit::Kind::AddAblation;
    ImGui::PopItemWidth();
    applyWhatIfEdit(w, draft, edit, layers, heads);
    // A control vector (llama.cpp's GGUF file; `cvector` makes one) and its scale, loaded again
    // when the slider is let go; a grammar for the next run's sampling (chapter 20).
    ImGui::Separator();
    ImGui::TextUnformatted("control vector:");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    ImGui::InputTextWithHint("##cvector", "FILE.gguf", &draft.controlVectorPath);
    ImGui::SameLine();
    if (ImGui::Button(w.steering ? "Reload" : "Load")) applyControlVectorDraft(w, draft);
    if (w.steering) {
        ImGui::SameLine();
        if (ImGui::SmallButton("x##cvector")) draft.controlVectorPath.clear(), applyControlVectorDraft(w, draft);
    }
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    ImGui::SliderFloat("scale", &draft.controlVectorScale, -4.0f, 4.0f, "%.2f");
    if (ImGui::IsItemDeactivatedAfterEdit() && w.steering) applyControlVectorDraft(w, draft);
    ImGui::TextUnformatted(c.settings.grammar ? "grammar (in use):" : "grammar (GBNF):");
    ImGui::InputTextMultiline("##grammar", &draft.grammarText, ImVec2(ImGui::GetFontSize() * 20, ImGui::GetFontSize() * 3.5f));
    if (ImGui::Button("Use grammar")) applyGrammarDraft(c.settings, draft);
    ImGui::SameLine();
    if (ImGui::Button("JSON")) draft.grammarText = kJsonGrammar, applyGrammarDraft(c.settings, draft);
    ImGui::SameLine();
    if (ImGui::Button("No grammar")) draft.grammarText.clear(), applyGrammarDraft(c.settings, draft);
    if (!draft.error.empty()) ImGui::TextColored(ImVec4(1.0f, 0.35f, 0.35f, 1), "%s", draft.error.c_str());
    if (w.any()) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.2f, 1), "next run: %s", w.describe().c_str());
    if (c.settings.grammar) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.2f, 1), "next run's text follows the grammar (%s)", c.settings.grammarSource.c_str());
}

void breakpointEditor(PanelContext& c) {
    int& stageIndex = c.view.breakpointDraft.stageIndex;
    int& layer = c.view.breakpointDraft.layer;
    const auto& catalog = stageCatalog();
    ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
    std::string preview = fmt::format("{} {}", catalog[size_t(stageIndex)].number, catalog[size_t(stageIndex)].key);
    if (ImGui::BeginCombo("##bpstage", preview.c_str())) {
        for (int i = 0; i < int(catalog.size()); ++i) {
            std::string item = fmt::format("{} {}", catalog[size_t(i)].number, catalog[size_t(i)].key);
            if (ImGui::Selectable(item.c_str(), i == stageIndex)) stageIndex = i;
        }
        ImGui::EndCombo();
    }
    ImGui::PopItemWidth();
    ImGui::SameLine();
    ImGui::PushItemWidth(ImGui::GetFontSize() * 5);
    int layerNumber = layer + 1;  // typed as the log counts, 0 for every layer
    ImGui::InputInt("layer", &layerNumber);
    ImGui::PopItemWidth();
    layer = std::max(0, layerNumber) - 1;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("1 is the first layer, as in the log; 0: every layer");
    ImGui::SameLine();
    auto breakpoints = c.session.breakpoints();
    if (ImGui::Button("Add")) {
        std::optional<int> l = layer >= 0 ? std::optional<int>(layer) : std::nullopt;
        if (!hasBreakpoint(breakpoints, StageId(stageIndex), l)) toggleBreakpoint(breakpoints, StageId(stageIndex), l);
        c.session.setBreakpoints(breakpoints);
    }
    for (size_t i = 0; i < breakpoints.size(); ++i) {
        const Breakpoint& b = breakpoints[i];
        ImGui::PushID(int(i));
        if (ImGui::SmallButton("x")) {
            breakpoints.erase(breakpoints.begin() + long(i));
            c.session.setBreakpoints(breakpoints);
            ImGui::PopID();
            break;
        }
        ImGui::SameLine();
        ImGui::TextColored(ImVec4(1, 0.35f, 0.35f, 1), "%s", breakpointLabel(b).c_str());
        ImGui::PopID();
    }
}
}  // namespace

void drawWhatIfSettings(PanelContext& c) { whatIfSettings(c); }

void drawControlsPanel(PanelContext& c) {
    // The buttons first: in sight without scrolling at any UI scale; what the engine does, the
    // model and the settings below them.
    buttons(c);
    status(c);
    ImGui::TextWrapped("Model: %s", modelLabel(c.model ? c.model->format : "", c.sourceDescription).c_str());
    if (c.model) {
        const std::string dims = fmt::format("Dim {} | layers {} | heads {} (KV {}) | HeadDim {} | FFN {} | vocab {}", c.model->args.dim,
                                             c.model->args.n_layers, c.model->args.n_heads, c.model->args.n_kv_heads, c.model->args.headDim(),
                                             c.model->args.ffnHiddenDim(), c.model->args.vocab_size);
        // In a narrow region (a large UI scale) the sizes are a hover away, so the buttons stay in sight.
        if (ImGui::GetContentRegionAvail().x >= ImGui::CalcTextSize(dims.c_str()).x * 0.6f) {
            ImGui::PushTextWrapPos(0);
            ImGui::TextDisabled("%s", dims.c_str());
            ImGui::PopTextWrapPos();
        } else if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip("%s", dims.c_str());
        }
    }
    const bool replay = c.replay;
    if (replay) ImGui::TextWrapped("Replaying a recorded trace: its own prompt and sampling are used; panels show what it recorded.");
    else if (ImGui::CollapsingHeader("Prompt and sampling", ImGuiTreeNodeFlags_DefaultOpen)) promptSettings(c);
    if (!replay && ImGui::CollapsingHeader("What-if experiments")) whatIfSettings(c);
    if (ImGui::CollapsingHeader("Breakpoints (F9: selected stage, Shift+F9: its layer only)")) breakpointEditor(c);
    if (ImGui::CollapsingHeader("Display")) {
        // The font is rebuilt at the new size when the slider is released, not on every drag step.
        float& scale = c.view.uiScaleDraft;
        float& shown = c.view.uiScaleShown;
        if (shown != c.requestedUiScale) scale = shown = c.requestedUiScale;
        ImGui::SliderFloat("UI scale", &scale, kMinUiScale, kMaxUiScale, "%.1f");
        if (ImGui::IsItemDeactivatedAfterEdit()) c.requestedUiScale = scale;
        ImGui::TextDisabled("DejaVu Sans: Latin, Greek, Cyrillic and more; no CJK glyphs (shown as '?').");
    }
}

}  // namespace llama::viewer
