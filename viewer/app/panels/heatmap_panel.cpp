// Any 2-D slice of any captured tensor of the current stage: pick the tensor, which axes are
// rows and columns, and an index for every other axis. Signed data uses a diverging scale.
#include <imgui.h>

#include <fmt/format.h>

#include "heatmap_view.h"
#include "panels.h"
#include "state/forward_map.h"
#include "state/tensor_export.h"

namespace llama::viewer {

namespace {
const CapturedTensor* chosenTensor(PanelContext& c) {
    const StageRecord& r = *c.current;
    if (r.tensors.empty()) return nullptr;
    if (const CapturedTensor* t = r.find(c.view.tensorName)) return t;
    return &r.tensors[0];
}

void axisCombo(const char* label, int& axis, const std::vector<std::string>& names, bool allowNone) {
    std::string preview = axis < 0 ? "(one row)" : fmt::format("{}: {}", axis, names[size_t(axis)]);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11);
    if (ImGui::BeginCombo(label, preview.c_str())) {
        if (allowNone && ImGui::Selectable("(one row)", axis < 0)) axis = -1;
        for (int a = 0; a < int(names.size()); ++a)
            if (ImGui::Selectable(fmt::format("{}: {}", a, names[size_t(a)]).c_str(), a == axis)) axis = a;
        ImGui::EndCombo();
    }
}

void exportButtons(PanelContext& c, const CapturedTensor& t, const Slice2D& slice) {
    // Where the file went (or why it did not), in the menu bar for a while.
    auto exportTo = [&](const char* extension, auto write) {
        try {
            const std::string path = exportPath(c, t.name, extension);
            write(path);
            c.view.exportNote = savedNote(path);
            c.view.lastSaved = path;
        } catch (const std::exception& e) {
            c.view.exportNote = e.what();
        }
        c.view.exportNoteTime = ImGui::GetTime();
    };
    if (ImGui::Button("Export CSV (slice)")) exportTo("csv", [&](const std::string& path) { writeCsv(path, slice); });
    ImGui::SameLine();
    if (ImGui::Button("Export .npy (tensor)")) exportTo("npy", [&](const std::string& path) { writeNpy(path, *t.data); });
    exportPngButton(c, "heatmap-" + t.name);
}
}  // namespace

void drawHeatmapPanel(PanelContext& c) {
    if (!c.current) {
        ImGui::TextDisabled("No stage captured yet.");
        return;
    }
    const StageRecord& r = *c.current;
    const CapturedTensor* t = chosenTensor(c);
    if (!t) {
        ImGui::TextDisabled("Stage %d (%s) carries no tensors.", r.info().number, std::string(r.info().key).c_str());
        return;
    }
    if (c.exporting) {
        ImGui::TextUnformatted(t->name.c_str());
    } else {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
        if (ImGui::BeginCombo("tensor", t->name.c_str())) {
            for (const auto& o : r.tensors)
                if (ImGui::Selectable(o.name.c_str(), &o == t)) c.view.tensorName = o.name;
            ImGui::EndCombo();
        }
    }
    ImGui::SameLine();
    ImGui::TextDisabled("%s %s, stage %d %s", shapeToString(t->shape).c_str(), dtypeName(t->dtype), r.info().number, recordWhere(r).c_str());
    // A gradient's size: how strongly the loss pulls on it (the log line's norm).
    if (const std::string norm = isTrainingStage(r.stage) ? gradientNorm(r.message, t->name) : ""; !norm.empty())
        ImGui::Text("L2 norm |%s| = %s   (%s, the gradient of stage %s)", t->name.c_str(), norm.c_str(), std::string(r.info().title).c_str(),
                    std::string(stageInfo(forwardStageOf(r.stage)).key).c_str());
    if (!t->data) {
        ImGui::TextWrapped("Only a summary of this tensor was kept (min %.4g, max %.4g, mean %.4g): older token steps keep small "
                           "tensors only, to bound memory.",
                           t->stats.min, t->stats.max, t->stats.mean);
        return;
    }
    const Tensor& data = *t->data;
    std::string sliceFor = fmt::format("{}/{}", r.index, t->name);
    if (c.view.sliceFor != sliceFor) c.view.slice = defaultSlice(data), c.view.sliceFor = sliceFor;
    SliceSpec& spec = c.view.slice;
    auto names = nameDims(t->shape, c.dims(r));
    // An exported picture says what the controls chose, in words, without the controls.
    if (data.rank() >= 2 && !c.exporting) {
        axisCombo("rows", spec.rowAxis, names, true);
        ImGui::SameLine();
        axisCombo("columns", spec.colAxis, names, false);
    }
    if (c.exporting)
        ImGui::Text("rows: %s | columns: %s", spec.rowAxis < 0 ? "-" : names[size_t(spec.rowAxis)].c_str(), names[size_t(spec.colAxis)].c_str());
    for (int a = 0; a < int(data.rank()); ++a) {
        if (a == spec.rowAxis || a == spec.colAxis || data.dim(a) <= 1) continue;
        // A head axis counts from 1, as the Attention panel and the log do; other axes are indices.
        const bool heads = isHeadAxis(names[size_t(a)]);
        const int first = heads ? headNumber(0) : 0;
        int v = int(spec.fixed[size_t(a)]) + first;
        const std::string label = heads ? fmt::format("head ({})", names[size_t(a)]) : fmt::format("axis {} ({})", a, names[size_t(a)]);
        if (c.exporting) {
            ImGui::Text("%s: %d", label.c_str(), v);
            continue;
        }
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
        if (ImGui::SliderInt(label.c_str(), &v, first, int(data.dim(a)) - 1 + first)) spec.fixed[size_t(a)] = v - first;
    }
    std::string key = fmt::format("hm/{}/{}/{}", sliceFor, spec.rowAxis, spec.colAxis);
    for (int64_t i : spec.fixed) key += fmt::format("/{}", i);
    const PreparedSlice& prepared = preparedSlice(c.caches.slices, key, [&] {
        Slice2D s = extractSlice(data, spec);
        const ColourScale scale = scaleFor(s.values);
        return PreparedSlice{std::move(s), scale};
    });
    const Slice2D& slice = prepared.slice;
    const ColourScale& scale = prepared.scale;
    exportButtons(c, *t, slice);
    drawLegend(scale, t->stats.negInf > 0, std::min(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 24));

    HeatmapLabels labels{spec.rowAxis < 0 ? "row" : names[size_t(spec.rowAxis)], names[size_t(spec.colAxis)], {}, {}};
    // A heads axis is labelled from 1, as the Attention panel and the log count heads.
    auto headNumbers = [](int64_t n) {
        std::vector<std::string> out;
        for (int h = 0; h < n; ++h) out.push_back(std::to_string(headNumber(h)));
        return out;
    };
    const bool headRows = spec.rowAxis >= 0 && isHeadAxis(names[size_t(spec.rowAxis)]), headCols = isHeadAxis(names[size_t(spec.colAxis)]);
    if (headRows) labels.rows = headNumbers(slice.rows);
    if (headCols) labels.cols = headNumbers(slice.cols);
    HeatmapHit hit = drawHeatmap(key, slice, scale, c.textures, c.view.heatmapZooms, ImGui::GetContentRegionAvail(), headRows || headCols ? &labels : nullptr,
                                 HeatmapStyle{.maxCell = 40});
    valueTooltip(hit, slice, &labels);
}

}  // namespace llama::viewer
