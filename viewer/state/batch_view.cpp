#include "state/batch_view.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

namespace llama::viewer {

std::optional<BatchView> batchViewAt(const TraceRun& run, size_t stageIndex) {
    if (!run.run.batch) return std::nullopt;
    std::optional<BatchView> view;
    int ubatches = 0;
    std::vector<const TracedContextShift*> shifts;
    int shiftsAfter = -1;  // the ubatches made before the shifts kept
    for (size_t i = 0; i <= stageIndex && i < run.stages.size(); ++i) {
        const TracedStage& s = run.stages[i];
        if (s.contextShift) {
            if (shiftsAfter != ubatches) shifts.clear(), shiftsAfter = ubatches;
            shifts.push_back(&*s.contextShift);
        }
        if (s.ubatch) view = BatchView{int(i), ubatches++, &*s.ubatch, nullptr, nullptr, nullptr, {}};
        if (!view) continue;
        if (s.kvSlot) view->slot = &*s.kvSlot;
        if (s.stage == StageId::KvMask)
            if (const TracedTensor* mask = s.tensor("mask"); mask && mask->hasValues() && mask->shape.size() == 2) view->mask = mask;
    }
    if (view && !shifts.empty()) view->shift = shifts.back(), view->shifts = std::move(shifts);
    return view;
}

int ubatchCount(const TraceRun& run) {
    int n = 0;
    for (const TracedStage& s : run.stages) n += s.ubatch.has_value();
    return n;
}

std::optional<size_t> ubatchStage(const TraceRun& run, int number) {
    for (size_t i = 0; i < run.stages.size(); ++i)
        if (run.stages[i].ubatch && number-- == 0) return i;
    return std::nullopt;
}

UbatchDestination ubatchDestination(const TraceRun& run, int number, size_t shown) {
    const std::optional<size_t> at = ubatchStage(run, number);
    if (!at) return {};
    if (*at < shown) return {at, std::nullopt};
    const TracedStage& s = run.stages[*at];
    return {std::nullopt, Breakpoint{s.stage, s.layer, s.step}};
}

std::string shiftsText(const std::vector<const TracedContextShift*>& shifts) {
    std::string out;
    for (const TracedContextShift* s : shifts)
        out += fmt::format("{}seq {}: {} -> {}", out.empty() ? "" : "; ", s->seq, cellPositionsText(s->before), cellPositionsText(s->after));
    return out.empty() ? "none" : out;
}

Rgb sequenceColour(int seq) {
    // Distinct hues that read on the dark background and in print; sequence 0 (a shared prefix
    // in `batch`) is grey-blue, the prompts' sequences from 1 take the bright ones.
    static constexpr Rgb kPalette[] = {{120, 140, 170}, {230, 120, 40}, {60, 160, 230}, {90, 190, 90},  {210, 90, 200},
                                       {230, 200, 60},  {200, 70, 80},  {70, 200, 190}, {160, 120, 230}, {170, 170, 90}};
    constexpr int n = int(std::size(kPalette));
    return kPalette[((seq % n) + n) % n];
}

std::string seqIdsText(const std::vector<int>& ids) { return fmt::format("{}", fmt::join(ids, ",")); }

std::string ubatchText(const TracedUBatch& ubatch) {
    std::string out;
    for (const TracedBatchToken& t : ubatch.tokens)
        out += fmt::format("{}{}:{}{}", out.empty() ? "" : " ", seqIdsText(t.seqIds), t.pos, t.output ? "*" : "");
    return out;
}

std::string cellsText(const std::vector<TracedCell>& cells) {
    std::string out;
    for (const TracedCell& c : cells) out += (out.empty() ? "" : " ") + (c.free() ? std::string(".") : seqIdsText(c.seqIds));
    return out;
}

std::string cellPositionsText(const std::vector<TracedCell>& cells) {
    std::string out;
    for (const TracedCell& c : cells) out += (out.empty() ? "" : " ") + (c.free() ? std::string(".") : std::to_string(c.pos));
    return out;
}

std::string maskText(const TracedTensor& mask) {
    std::string out;
    for (int64_t i = 0; i < mask.shape[0]; ++i) {
        if (i) out += '|';
        for (int64_t j = 0; j < mask.shape[1]; ++j) out += std::isinf(mask.values.floatAt(i * mask.shape[1] + j)) ? '0' : '1';
    }
    return out;
}

}  // namespace llama::viewer
