// A batch trace (`llama-walkthrough batch --trace`): the ubatch the shown stage belongs to as a
// table, the KV cells find_slot left (coloured by sequence; head, the cells just written and free
// cells marked), the mask built from the cells and the last context shift as the cells'
// positions before and after. The numbers come from state/batch_view.h, as the run page's.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "heatmap_view.h"
#include "panels.h"
#include "state/batch_view.h"

namespace llama::viewer {

namespace {

ImU32 colourOf(const std::vector<int>& seqIds) {
    const Rgb c = seqIds.empty() ? kFreeCellColour : seqIds.size() > 1 ? kSharedCellColour : sequenceColour(seqIds.front());
    return toImColour(c);
}

// One row of cells, wrapped to the panel's width: each a box of its sequence's colour with its
// index above and its position inside ('.' when free). `outline` marks cells [first, end).
void drawCells(const std::vector<TracedCell>& cells, int extraFree, int head, int first, int end) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float font = ImGui::GetFontSize(), w = font * 2.0f, h = font * 2.6f;
    const float width = std::max(w, ImGui::GetContentRegionAvail().x);
    const int perRow = std::max(1, int(width / (w + 2)));
    const int n = int(cells.size()) + extraFree;
    for (int row = 0; row * perRow < n; ++row) {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        for (int k = 0; k < perRow && row * perRow + k < n; ++k) {
            const int j = row * perRow + k;
            const TracedCell cell = j < int(cells.size()) ? cells[size_t(j)] : TracedCell{};
            const ImVec2 a(p.x + float(k) * (w + 2), p.y + font), b(a.x + w, a.y + font * 1.3f);
            dl->AddText(ImVec2(a.x + 2, p.y), ImGui::GetColorU32(ImGuiCol_TextDisabled), std::to_string(j).c_str());
            dl->AddRectFilled(a, b, colourOf(cell.seqIds), 3.0f);
            if (j >= first && j < end) dl->AddRect(a, b, IM_COL32(255, 255, 255, 255), 3.0f, 0, 2.0f);
            const std::string label = cell.free() ? "." : std::to_string(cell.pos);
            dl->AddText(ImVec2(a.x + 3, a.y + font * 0.15f), cell.free() ? IM_COL32(150, 150, 160, 255) : IM_COL32(15, 15, 15, 255), label.c_str());
            if (j == head) dl->AddTriangleFilled(ImVec2(a.x + w / 2, b.y + 1), ImVec2(a.x + w / 2 - 5, b.y + 8), ImVec2(a.x + w / 2 + 5, b.y + 8),
                                                 IM_COL32(255, 255, 255, 255));
            if (hoveringRect(a, b))
                ImGui::SetTooltip("%s", cell.free() ? fmt::format("cell {}: free", j).c_str()
                                                    : fmt::format("cell {}: pos {}, seq {}", j, cell.pos, seqIdsText(cell.seqIds)).c_str());
        }
        ImGui::Dummy(ImVec2(float(perRow) * (w + 2), h));
    }
}

void drawUBatchTable(const TracedUBatch& u, PanelContext& c) {
    if (!ImGui::BeginTable("ubatch", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollY,
                           ImVec2(0, std::min(ImGui::GetTextLineHeightWithSpacing() * float(u.tokens.size() + 1) + 6, ImGui::GetFontSize() * 12))))
        return;
    for (const char* h : {"i", "token", "pos", "seq_ids", "output"}) ImGui::TableSetupColumn(h);
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < u.tokens.size(); ++i) {
        const TracedBatchToken& t = u.tokens[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%zu", i);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(fmt::format("{} {}", t.token.id, c.piece(t.token.id)).c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%d", t.pos);
        ImGui::TableNextColumn();
        ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, colourOf(t.seqIds));
        ImGui::TextColored(ImVec4(0.05f, 0.05f, 0.05f, 1), "%s", seqIdsText(t.seqIds).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(t.output ? "yes" : "no");
    }
    ImGui::EndTable();
}

// Rows: the ubatch's tokens (seq:pos); columns: the cells, numbered above as in the row of cells.
// A token's colour where it sees the cell.
void drawMask(const TracedTensor& mask, const TracedUBatch& u) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float font = ImGui::GetFontSize(), labelW = font * 4;
    const int64_t rows = mask.shape[0], cols = mask.shape[1];
    const float cell = std::clamp((ImGui::GetContentRegionAvail().x - labelW) / float(std::max<int64_t>(cols, 1)), 3.0f, font * 1.5f);
    ImVec2 p = ImGui::GetCursorScreenPos();
    // The cells' numbers, every k-th where they would overlap.
    const int every = std::max(1, int(std::ceil((ImGui::CalcTextSize("00").x + 4) / cell)));
    dl->AddText(p, ImGui::GetColorU32(ImGuiCol_TextDisabled), "cell");
    for (int64_t j = 0; j < cols; j += every)
        dl->AddText(ImVec2(p.x + labelW + float(j) * cell + 1, p.y), ImGui::GetColorU32(ImGuiCol_TextDisabled), std::to_string(j).c_str());
    p.y += ImGui::GetTextLineHeightWithSpacing();
    for (int64_t i = 0; i < rows && i < int64_t(u.tokens.size()); ++i) {
        const TracedBatchToken& t = u.tokens[size_t(i)];
        const float y = p.y + float(i) * cell;
        if (cell >= font * 0.8f) dl->AddText(ImVec2(p.x, y), ImGui::GetColorU32(ImGuiCol_Text), fmt::format("{}:{}", seqIdsText(t.seqIds), t.pos).c_str());
        for (int64_t j = 0; j < cols; ++j) {
            const bool sees = !std::isinf(mask.values.floatAt(i * cols + j));
            const ImVec2 a(p.x + labelW + float(j) * cell, y);
            dl->AddRectFilled(a, ImVec2(a.x + cell - 1, a.y + cell - 1), sees ? colourOf(t.seqIds) : IM_COL32(40, 40, 48, 255));
        }
    }
    ImGui::Dummy(ImVec2(labelW + float(cols) * cell, ImGui::GetTextLineHeightWithSpacing() + float(rows) * cell + 2));
}

// Shows ubatch `number`: its stage, where the replay has shown it; else the replay runs on to it,
// started first if it was not (and the panels follow it there).
void goToUbatch(PanelContext& c, const TraceRun& trace, int number) {
    const UbatchDestination d = ubatchDestination(trace, number, c.snap.records.size());
    if (d.stage) c.view.selectedRecord = int(*d.stage);
    if (d.runTo) {
        c.view.selectedRecord = -1;
        if (c.status.state == SessionState::Ready) c.session.start(c.settings, StepController::Mode::Stage, true);
        c.session.runTo(*d.runTo);
    }
}

}  // namespace

void drawBatchPanel(PanelContext& c) {
    const auto trace = c.session.trace();
    if (!trace || !trace->run.batch) {
        ImGui::TextWrapped("A batch of sequences shows here: open a trace recorded by `llama-walkthrough batch ... --trace FILE` (File > Open).");
        return;
    }
    const std::optional<BatchView> v = c.current ? batchViewAt(*trace, size_t(c.current->index)) : std::nullopt;
    const int count = ubatchCount(*trace);
    // Stepping through the ubatches: each is a forward pass of the replay.
    const int number = v ? v->ubatchNumber : -1;
    // A button that cannot go anywhere is greyed, and the line after it says why.
    const bool busy = c.status.state == SessionState::Running && !c.status.held;
    ImGui::BeginDisabled(number <= 0 || busy);
    if (button(c.view, "< ubatch")) goToUbatch(c, *trace, number - 1);
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(number + 1 >= count || busy);
    if (button(c.view, "ubatch >")) goToUbatch(c, *trace, number + 1);
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (!v) {
        ImGui::TextDisabled(c.status.state == SessionState::Ready ? "before the first ubatch (%d in this run): \"ubatch >\" starts the replay there"
                                                                  : "before the first ubatch (%d in this run)",
                            count);
        return;
    }
    if (busy) ImGui::TextDisabled("the replay is running on to the next stop...");
    else if (number + 1 >= count) ImGui::TextDisabled("the last ubatch of the run");
    const TracedUBatch& u = *v->ubatch;
    ImGui::Text("ubatch %d of %d: n_tokens = %d, n_seqs = %d, n_outputs = %d", v->ubatchNumber + 1, count, u.nTokens, u.nSeqs, u.nOutputs);
    drawUBatchTable(u, c);

    if (v->slot) {
        const TracedKvSlot& s = *v->slot;
        ImGui::Text("KV cells after find_slot: kv head = %d, used = %d / %d, n_kv = %d", s.head, s.used, s.size, s.nKV);
        ImGui::TextDisabled("coloured by sequence (light: shared by several); outlined: written for this ubatch; the arrow: head; '.': free");
        drawCells(s.cells, std::min(s.size - s.nKV, 4), s.head, s.head, s.head + s.nTokens);
        if (s.size - s.nKV > 4) ImGui::TextDisabled("... %d more free cells", s.size - s.nKV - 4);
    } else {
        ImGui::TextDisabled("find_slot has not run for this ubatch yet");
    }
    if (v->mask) {
        ImGui::Text("Mask from the cells [%lld %lld]: a token sees a cell of its sequence at a position not later",
                    static_cast<long long>(v->mask->shape[0]), static_cast<long long>(v->mask->shape[1]));
        drawMask(*v->mask, u);
    } else {
        ImGui::TextDisabled("the mask is built at this ubatch's kv_mask stage");
    }
    // Sequences that reach the context's end together shift one after the other: each is shown.
    for (size_t k = 0; k < v->shifts.size(); ++k) {
        const TracedContextShift* s = v->shifts[k];
        const std::string which = v->shifts.size() > 1 ? fmt::format("Last context shifts, {} of {}:", k + 1, v->shifts.size()) : "Last context shift,";
        ImGui::Text("%s seq %d: n_past = %d, n_keep = %d, n_discard = %d", which.c_str(), s->seq, s->nPast, s->nKeep, s->nDiscard);
        ImGui::TextUnformatted("before:");
        drawCells(s->before, 0, -1, 0, 0);
        ImGui::TextUnformatted("after:");
        drawCells(s->after, 0, -1, 0, 0);
    }
}

}  // namespace llama::viewer
