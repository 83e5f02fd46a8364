#include "page/batch_page_data.h"

#include <fmt/format.h>

#include <set>

#include "state/batch_view.h"

namespace llama::page {

using nlohmann::json;
using namespace llama::viewer;

namespace {

json cellsJson(const std::vector<TracedCell>& cells, std::set<int>& seqs) {
    json out = json::array();
    for (const TracedCell& c : cells) {
        seqs.insert(c.seqIds.begin(), c.seqIds.end());
        out.push_back({{"pos", c.pos}, {"seqIds", c.seqIds}});
    }
    return out;
}

json shiftJson(const TracedContextShift& s, std::set<int>& seqs) {
    return {{"seq", s.seq},       {"nPast", s.nPast}, {"nKeep", s.nKeep}, {"nDiscard", s.nDiscard},
            {"before", cellsJson(s.before, seqs)}, {"after", cellsJson(s.after, seqs)}};
}

// The mask's rows as "1" where the token sees the cell, "0" where it is -inf.
json maskRows(const TracedTensor& mask) {
    json rows = json::array();
    const std::string text = maskText(mask);
    for (size_t begin = 0; begin <= text.size();) {
        size_t end = text.find('|', begin);
        if (end == std::string::npos) end = text.size();
        rows.push_back(text.substr(begin, end - begin));
        begin = end + 1;
    }
    return rows;
}

std::string hex(Rgb c) { return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b); }

}  // namespace

json batchPageJson(const TraceRun& run) {
    if (!run.run.batch) return nullptr;
    std::set<int> seqs;
    json ubatches = json::array();
    for (int n = 0;; ++n) {
        const std::optional<size_t> at = ubatchStage(run, n);
        if (!at) break;
        const std::optional<size_t> next = ubatchStage(run, n + 1);
        // The view once the ubatch's own stages ran: up to the stage before the next ubatch.
        const size_t last = next ? *next - 1 : run.stages.size() - 1;
        const std::optional<BatchView> v = batchViewAt(run, last);
        json tokens = json::array();
        for (const TracedBatchToken& t : v->ubatch->tokens) {
            seqs.insert(t.seqIds.begin(), t.seqIds.end());
            tokens.push_back({{"id", t.token.id}, {"piece", t.token.piece}, {"pos", t.pos}, {"seqIds", t.seqIds}, {"output", t.output}});
        }
        json slot = nullptr;
        if (v->slot)
            slot = {{"head", v->slot->head}, {"nTokens", v->slot->nTokens}, {"used", v->slot->used}, {"size", v->slot->size},
                    {"nKV", v->slot->nKV}, {"cells", cellsJson(v->slot->cells, seqs)}};
        ubatches.push_back({{"number", n},
                            {"first", *at},
                            {"last", last},
                            {"step", run.stages[*at].step},
                            {"nSeqs", v->ubatch->nSeqs},
                            {"nOutputs", v->ubatch->nOutputs},
                            {"tokens", std::move(tokens)},
                            {"slot", std::move(slot)},
                            {"mask", v->mask ? maskRows(*v->mask) : json(nullptr)},
                            {"shift", v->shift ? shiftJson(*v->shift, seqs) : json(nullptr)}});
    }
    json sequences = json::array();
    for (const TracedSequence& s : run.sequences)
        sequences.push_back({{"prompt", s.prompt}, {"text", s.text}, {"generated", s.generatedTokens.size()}, {"stopReason", s.stopReason},
                             {"contextShifts", s.contextShifts}});
    json colours = json::object();
    for (int s : seqs) colours[std::to_string(s)] = hex(sequenceColour(s));
    colours["shared"] = hex(kSharedCellColour);
    colours["free"] = hex(kFreeCellColour);
    return {{"parallel", run.run.batch->parallel}, {"ubatch", run.run.batch->ubatch}, {"contextShift", run.run.batch->contextShift},
            {"sequences", std::move(sequences)}, {"ubatches", std::move(ubatches)}, {"colours", std::move(colours)}};
}

}  // namespace llama::page
