#include "state/patch_view.h"

#include <fmt/format.h>

namespace llama::viewer {

namespace {
std::string pieceAt(const TraceRun& run, int position) {
    return size_t(position) < run.promptTokens.size() ? run.promptTokens[size_t(position)].piece : "?";
}
// The column's tokens: " unto", or " Moses/ Joseph" where the prompts differ.
std::string columnTokens(const PatchGrid& g, const TraceRun& clean, const TraceRun& corrupt, int column) {
    const std::string a = pieceAt(clean, g.cleanPosition[size_t(column)]), b = pieceAt(corrupt, g.corruptPosition[size_t(column)]);
    return a == b ? a : a + "/" + b;
}
}  // namespace

std::string patchColumnLabel(const PatchGrid& g, const TraceRun& clean, const TraceRun& corrupt, int column) {
    if (g.heads()) return fmt::format("head {}", column + 1);
    return fmt::format("{} {}", g.corruptPosition[size_t(column)], columnTokens(g, clean, corrupt, column));
}

std::string patchCellText(const PatchGrid& g, const TraceRun& clean, const TraceRun& corrupt, PatchCell cell) {
    const std::string where = g.heads() ? fmt::format("head {}", cell.column + 1)
                                        : fmt::format("position {}{} \"{}\"", g.corruptPosition[size_t(cell.column)],
                                                      g.cleanPosition[size_t(cell.column)] == g.corruptPosition[size_t(cell.column)]
                                                          ? std::string()
                                                          : fmt::format(" (clean {})", g.cleanPosition[size_t(cell.column)]),
                                                      columnTokens(g, clean, corrupt, cell.column));
    return fmt::format("layer {}, {}: recovered {:.2f} (logit difference {:.2f}; clean {:.2f}, corrupted {:.2f})", cell.layer + 1, where,
                       g.recovered(cell.layer, cell.column), g.patchedDiff[size_t(cell.layer) * size_t(g.columns) + size_t(cell.column)],
                       g.cleanDiff, g.corruptDiff);
}

std::optional<int> patchStageIndex(const PatchGrid& g, const TraceRun& run, int layer) {
    for (size_t i = 0; i < run.stages.size(); ++i)
        if (run.stages[i].stage == g.stage() && run.stages[i].layer == layer && run.stages[i].step == 0) return int(i);
    return std::nullopt;
}

std::vector<float> patchedRow(const PatchGrid& g, const TraceRun& run, PatchCell cell, bool clean) {
    const auto index = patchStageIndex(g, run, cell.layer);
    if (!index || g.heads()) return {};
    const TracedTensor* t = run.stages[size_t(*index)].tensor("output");
    if (!t || !t->hasValues() || t->shape.size() != 2) return {};
    const int64_t position = clean ? g.cleanPosition[size_t(cell.column)] : g.corruptPosition[size_t(cell.column)];
    if (position >= t->shape[0]) return {};
    const float* row = t->values.data<float>() + position * t->shape[1];
    return {row, row + t->shape[1]};
}

}  // namespace llama::viewer
