// The current stage's tensors as labelled boxes: each side names its dimension (seqLen,
// N_Heads, HeadDim...), the fill tells the dtype, and the stage's log line says which
// operation produced it.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "heatmap_view.h"
#include "panels.h"

namespace llama::viewer {

namespace {
ImU32 dtypeColour(DType t) {
    switch (t) {
        case DType::BF16: return IM_COL32(70, 110, 170, 255);
        case DType::F32: return IM_COL32(190, 120, 50, 255);
        case DType::Complex64: return IM_COL32(130, 80, 160, 255);
        case DType::I32: return IM_COL32(60, 140, 90, 255);
        default: return IM_COL32(128, 128, 128, 255);  // weights-only types (F16, quantized) are never a stage's output
    }
}

// Sides grow with the logarithm of the size, so 1 and 128256 both fit on screen and a
// bigger dimension always draws a longer side.
float side(int64_t n, float unit) { return unit * std::clamp(1.5f + 1.4f * std::log2(float(std::max<int64_t>(n, 1))), 1.5f, 18.0f); }

std::string dimLabel(int64_t size, const std::string& name) {
    return name == std::to_string(size) ? name : fmt::format("{} = {}", name, size);
}

void drawBox(const CapturedTensor& t, const std::vector<std::string>& names) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float font = ImGui::GetFontSize(), unit = font;
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), edge = IM_COL32(230, 230, 230, 255), fill = dtypeColour(t.dtype);
    const size_t rank = t.shape.size();
    if (rank == 0 || rank > 3) {
        ImGui::TextDisabled("(rank %zu: no drawing)", rank);
        return;
    }
    const int64_t rows = rank >= 2 ? t.shape[rank - 2] : 1, cols = t.shape[rank - 1];
    const float w = side(cols, unit), h = rank >= 2 ? side(rows, unit) : font * 1.2f;
    const int depth = rank == 3 ? int(std::min<int64_t>(t.shape[0], 6)) : 1;
    const float step = font * 0.5f;
    const float leftGutter = rank >= 2 ? font * 1.6f : 0;
    const float topGutter = font * 1.5f + step * float(depth - 1);

    ImVec2 p = ImGui::GetCursorScreenPos();
    ImVec2 front(p.x + leftGutter, p.y + topGutter);
    // Stacked copies behind the front face show the leading axis.
    for (int d = depth - 1; d >= 0; --d) {
        ImVec2 a(front.x + step * float(d), front.y - step * float(d));
        dl->AddRectFilled(a, ImVec2(a.x + w, a.y + h), fill);
        dl->AddRect(a, ImVec2(a.x + w, a.y + h), edge);
    }
    std::string colText = dimLabel(cols, names[rank - 1]);
    dl->AddText(ImVec2(front.x, front.y - font * 1.3f - step * float(depth - 1)), text, colText.c_str());
    if (rank >= 2) addVerticalText(dl, ImVec2(p.x, front.y + h), text, dimLabel(rows, names[rank - 2]));
    float extra = 0;
    if (rank == 3) {
        std::string depthText = dimLabel(t.shape[0], names[0]) + " (stacked)";
        ImVec2 at(front.x + w + step * float(depth - 1) + font * 0.4f, front.y - step * float(depth - 1));
        dl->AddText(at, text, depthText.c_str());
        extra = ImGui::CalcTextSize(depthText.c_str()).x + font;
    }
    float width = leftGutter + w + step * float(depth - 1) + extra;
    width = std::max(width, leftGutter + ImGui::CalcTextSize(colText.c_str()).x);
    ImGui::Dummy(ImVec2(width, topGutter + h + font * 0.5f));
}
}  // namespace

void drawShapesPanel(PanelContext& c) {
    if (!c.current) {
        ImGui::TextDisabled("No stage captured yet.");
        return;
    }
    const StageRecord& r = *c.current;
    const StageInfo& info = r.info();
    ImGui::Text("Stage %d: %s", info.number, std::string(info.title).c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("(%s)", recordWhere(r).c_str());
    exportPngButton(c, "shapes");
    ImGui::TextDisabled("Operation (from the log):");
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(r.message.c_str());
    ImGui::PopTextWrapPos();
    // The dtype colours, once.
    for (DType t : {DType::BF16, DType::F32, DType::I32, DType::Complex64}) {
        ImVec2 q = ImGui::GetCursorScreenPos();
        float s = ImGui::GetFontSize();
        ImGui::GetWindowDrawList()->AddRectFilled(q, ImVec2(q.x + s, q.y + s), dtypeColour(t));
        ImGui::Dummy(ImVec2(s, s));
        ImGui::SameLine();
        ImGui::TextUnformatted(dtypeName(t));
        ImGui::SameLine();
    }
    ImGui::NewLine();
    ImGui::Separator();
    if (r.tensors.empty()) ImGui::TextDisabled("This stage carries no tensors.");
    ImGui::BeginChild("shapes");
    const DimContext dims = c.dims(r);
    for (const auto& t : r.tensors) {
        auto names = nameDims(t.shape, dims);
        std::string joined;
        for (size_t i = 0; i < names.size(); ++i) joined += (i ? ", " : "") + names[i];
        ImGui::Text("%s", t.name.c_str());
        ImGui::SameLine();
        ImGui::TextDisabled("shape(%s) [%s]  %s  %.1f KB%s", shapeToString(t.shape).c_str(), joined.c_str(), dtypeName(t.dtype),
                            double(dtypeBytes(t.dtype, shapeNumel(t.shape))) / 1024.0, t.data ? "" : "  (summary only)");
        ImGui::TextDisabled("min %.4g  max %.4g  mean %.4g%s", t.stats.min, t.stats.max, t.stats.mean,
                            t.stats.negInf ? fmt::format("  -inf x{}", t.stats.negInf).c_str() : "");
        drawBox(t, names);
        ImGui::Separator();
    }
    ImGui::EndChild();
}

}  // namespace llama::viewer
