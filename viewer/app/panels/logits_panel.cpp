// The next-token choice: the top-k tokens' logits and probabilities at the sampling
// temperature (greedy runs show temperature 1), the sampled token highlighted, and the
// history of chosen tokens. With repetition penalties, the tokens after them (what the sampler
// chose from) above the tokens as the model gave them.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <optional>

#include "panels.h"
#include "state/temperature_sweep.h"

namespace llama::viewer {

namespace {
void barChart(PanelContext& c, const StepInfo& s, const std::vector<TokenProbability>& top) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float font = ImGui::GetFontSize();
    const float labelW = font * 9, valueW = ImGui::CalcTextSize("p 0.000  logit -00.00  #000000").x + font;
    const float barMax = std::max(font * 4, ImGui::GetContentRegionAvail().x - labelW - valueW);
    const float rowH = font * 1.5f;
    float maxP = 0;
    for (const auto& t : top) maxP = std::max(maxP, t.probability);
    // Bars are relative to the most likely token: said, so a full bar is not read as p = 1.
    if (!top.empty()) ImGui::TextDisabled("bars: probability relative to the top token's (%.3f)", double(maxP));
    for (const auto& t : top) {
        ImVec2 p = ImGui::GetCursorScreenPos();
        bool chosen = t.id == s.sampled;
        std::string label = c.piece(t.id);
        if (ImGui::CalcTextSize(label.c_str()).x > labelW - font) label = label.substr(0, 12) + "...";
        ImU32 text = chosen ? IM_COL32(255, 215, 90, 255) : ImGui::GetColorU32(ImGuiCol_Text);
        dl->AddText(ImVec2(p.x, p.y + (rowH - font) / 2), text, fmt::format("{}{}", chosen ? "\xe2\x96\xb6 " : "  ", label).c_str());
        float w = barMax * (maxP > 0 ? t.probability / maxP : 0);
        ImVec2 a(p.x + labelW, p.y + 2), b(a.x + std::max(w, 1.0f), p.y + rowH - 2);
        dl->AddRectFilled(a, b, chosen ? IM_COL32(240, 170, 40, 255) : IM_COL32(80, 130, 200, 255));
        dl->AddText(ImVec2(p.x + labelW + barMax + font * 0.5f, p.y + (rowH - font) / 2), text,
                    fmt::format("p {:.3f}  logit {:.2f}  #{}", t.probability, t.logit, t.id).c_str());
        ImGui::Dummy(ImVec2(labelW + barMax + valueW, rowH));
    }
}
// The same logits at another temperature: how the choice would spread. The run is unchanged.
void temperatureSweep(PanelContext& c, const StepInfo& s) {
    ImGui::Separator();
    if (c.exporting) {
        ImGui::Text("what-if temperature %.2f", double(c.view.sweepTemperature));
    } else {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
        ImGui::SliderFloat("what-if temperature", &c.view.sweepTemperature, 0.0f, 3.0f, "%.2f");
    }
    // The sample stage's logits, or before it (Step token holds at stage 19) the logits stage's.
    const StageRecord* sample = findRecord(c.snap.records, s.step, -1, StageId::Sample);
    if (!sample) sample = findRecord(c.snap.records, s.step, -1, StageId::Logits);
    const CapturedTensor* logits = sample ? sample->find("logits") : nullptr;
    const std::optional<Tensor> row = logits && logits->data ? std::optional(nextTokenLogits(*logits->data)) : std::nullopt;
    const SweptTokens swept = tokensAtTemperature(row ? &*row : nullptr, s.top, c.view.sweepTemperature, int(s.top.size()));
    ImGui::TextDisabled("%s", swept.wholeVocabulary ? "softmax(logits / T) over the whole vocabulary"
                                                    : "softmax over the recorded top tokens only (a trace keeps no other logits)");
    barChart(c, s, swept.top);
}
}  // namespace

void drawLogitsPanel(PanelContext& c) {
    const StepInfo* s = stepWithTop(c.snap.steps, c.current ? c.current->step : INT_MAX);
    if (!s) {
        ImGui::TextWrapped("No logits yet: the chart appears at stage 19 (logits) of the first step (Step token holds there).");
        return;
    }
    float temperature = c.session.settings().sampling.temperature;
    ImGui::Text("Step %d: the %zu most likely next tokens", s->step, s->top.size());
    if (s->sampled < 0) ImGui::TextDisabled("not sampled yet: stage 20 (sample) picks one of them");
    exportPngButton(c, "logits");
    if (temperature > 0) ImGui::TextDisabled("probabilities = softmax(logits / %.2f); the highlighted token was drawn from them", double(temperature));
    else ImGui::TextDisabled("greedy: temperature 0 picks the largest logit; probabilities shown at temperature 1");
    if (!s->topPenalized.empty()) {
        ImGui::TextUnformatted("After the repetition penalties (what the sampler chose from):");
        barChart(c, *s, s->topPenalized);
        ImGui::TextUnformatted("Before them, as the model gave them:");
    }
    barChart(c, *s, s->top);
    if (s->sampled >= 0 && s->sampledProbability == 0)
        ImGui::TextDisabled("sampled %s (#%d), outside the top %zu", c.piece(s->sampled).c_str(), s->sampled, s->top.size());
    temperatureSweep(c, *s);
    ImGui::Separator();
    ImGui::TextUnformatted("Chosen tokens");
    if (ImGui::BeginTable("history", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupColumn("step");
        ImGui::TableSetupColumn("token");
        ImGui::TableSetupColumn("id");
        ImGui::TableSetupColumn("probability");
        ImGui::TableHeadersRow();
        // Only the rows in sight are drawn (a long run has thousands of steps).
        std::vector<size_t> chosen;
        for (size_t i = 0; i < c.snap.steps.size(); ++i)
            if (c.snap.steps[i].sampled >= 0) chosen.push_back(i);
        ImGuiListClipper clipper;
        clipper.Begin(int(chosen.size()));
        while (clipper.Step())
            for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
                const auto& h = c.snap.steps[chosen[size_t(row)]];
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::Text("%d", h.step);
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(c.piece(h.sampled).c_str());
                ImGui::TableNextColumn();
                ImGui::Text("%d", h.sampled);
                ImGui::TableNextColumn();
                if (h.sampledProbability > 0) ImGui::Text("%.3f", h.sampledProbability);
                else ImGui::TextDisabled("< top %zu", h.top.size());
            }
        ImGui::EndTable();
    }
}

}  // namespace llama::viewer
