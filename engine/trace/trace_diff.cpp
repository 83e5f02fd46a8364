#include "trace/trace_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "stages/numbering.h"

namespace llama {

namespace {
// 0 for equal values (two -inf included), else |a - b|.
float gap(float a, float b) {
    if (a == b || (std::isnan(a) && std::isnan(b))) return 0;
    const float d = std::fabs(a - b);
    return std::isnan(d) ? std::numeric_limits<float>::infinity() : d;
}

struct TensorDifference {
    float difference = 0;
    bool exact = true;
    std::string note;
};

TensorDifference compare(const TracedTensor& a, const TracedTensor& b) {
    TensorDifference d;
    if (a.shape != b.shape) {
        d.note = fmt::format("{} has shape {} vs {}", a.name, shapeToString(a.shape), shapeToString(b.shape));
        return d;
    }
    if (!a.tokens.empty() && !b.tokens.empty()) {  // ids are names, not quantities: equal or not
        for (size_t i = 0; i < std::min(a.tokens.size(), b.tokens.size()); ++i)
            if (a.tokens[i].id != b.tokens[i].id)
                return {0, true, fmt::format("{} holds token {:?} vs {:?}", a.name, a.tokens[i].piece, b.tokens[i].piece)};
        return d;
    }
    if (a.hasValues() && b.hasValues()) {
        for (int64_t i = 0, n = a.values.numel(); i < n; ++i) d.difference = std::max(d.difference, gap(a.values.floatAt(i), b.values.floatAt(i)));
        return d;
    }
    d.exact = false;
    if (!a.stats || !b.stats) return d;  // dry runs: shapes only
    const TensorStats &x = *a.stats, &y = *b.stats;
    d.difference = std::max({gap(x.min, y.min), gap(x.max, y.max), gap(x.mean, y.mean)});
    for (size_t i = 0; i < std::min(x.first.size(), y.first.size()); ++i) d.difference = std::max(d.difference, gap(x.first[i], y.first[i]));
    if (x.negInf != y.negInf) d.note = fmt::format("{} has {} vs {} -inf values", a.name, x.negInf, y.negInf);
    return d;
}

StageDifference compare(const TracedStage& a, const TracedStage& b) {
    StageDifference s;
    s.stage = a.stage, s.layer = a.layer, s.step = a.step;
    auto note = [&s](const std::string& name, const std::string& text, bool mismatch) {
        if (s.note.empty()) s.note = text, s.tensor = name;
        s.mismatch = s.mismatch || mismatch;
    };
    for (const TracedTensor& ta : a.tensors) {
        const TracedTensor* tb = b.tensor(ta.name);
        if (!tb) {
            note(ta.name, ta.name + " only in A", true);
            continue;
        }
        const TensorDifference d = compare(ta, *tb);
        if (!d.note.empty()) note(ta.name, d.note, ta.shape != tb->shape);
        if (d.difference > s.difference) s.difference = d.difference, s.exact = d.exact, s.tensor = ta.name;
        else if (d.difference == s.difference) s.exact = s.exact && d.exact;
    }
    for (const TracedTensor& tb : b.tensors)
        if (!a.tensor(tb.name)) note(tb.name, tb.name + " only in B", true);
    // The integer fields are part of what a stage says: where it wrote the cache, how full it is.
    if (a.startPos != b.startPos) note("", fmt::format("startPos {} vs {}", a.startPos, b.startPos), false);
    if (a.cacheFilled != b.cacheFilled)
        note("", fmt::format("cacheFilled {} vs {}", a.cacheFilled ? std::to_string(*a.cacheFilled) : "-",
                             b.cacheFilled ? std::to_string(*b.cacheFilled) : "-"),
             false);
    if (a.message != b.message) note("", "message differs", false);
    return s;
}

std::string cell(float difference, bool exact) {
    if (difference == 0) return "0";
    return fmt::format("{}{:.3g}", exact ? "" : ">=", difference);
}

// Which of two differences of one table cell to show: the more telling.
bool moreTelling(const StageDifference& a, const StageDifference& b) {
    return std::tuple(a.mismatch, a.difference, a.diverges()) > std::tuple(b.mismatch, b.difference, b.diverges());
}
}  // namespace

std::string diffCell(const StageDifference& s) {
    if (s.mismatch) return "absent";
    if (s.difference == 0 && !s.note.empty()) return "differs";
    return cell(s.difference, s.exact);
}

DiffTable diffTable(const TraceDiff& diff, int nLayers, std::optional<int> step) {
    std::map<StageId, std::vector<const StageDifference*>> rows;
    for (const auto& s : diff.stages) {
        if (step && s.step != *step) continue;
        auto& row = rows[s.stage];
        row.resize(size_t(std::max(nLayers, 0)) + 1);
        if (s.layer + 1 >= int(row.size())) continue;
        const StageDifference*& c = row[size_t(s.layer + 1)];
        if (!c || moreTelling(s, *c)) c = &s;
    }
    DiffTable t;
    for (auto& [stage, row] : rows) t.stages.push_back(stage), t.cells.push_back(std::move(row));
    return t;
}

TraceDiff diffTraces(const TraceRun& a, const TraceRun& b) {
    // B's stages by step, layer and stage, in order. A stage of A takes the first unpaired one with
    // the same log lines, else the first unpaired one: marks made from concurrent tasks (qkv_task)
    // come in any order, the rest in the order they ran.
    using Key = std::tuple<int, int, StageId>;
    std::map<Key, std::vector<size_t>> inB;
    for (size_t i = 0; i < b.stages.size(); ++i) inB[{b.stages[i].step, b.stages[i].layer, b.stages[i].stage}].push_back(i);
    TraceDiff diff;
    for (size_t i = 0; i < a.stages.size(); ++i) {
        const TracedStage& sa = a.stages[i];
        auto it = inB.find({sa.step, sa.layer, sa.stage});
        if (it == inB.end() || it->second.empty()) {
            diff.unpairedA++;
            continue;
        }
        std::vector<size_t>& candidates = it->second;
        auto pick = std::find_if(candidates.begin(), candidates.end(), [&](size_t j) { return b.stages[j].message == sa.message; });
        if (pick == candidates.end()) pick = candidates.begin();
        StageDifference s = compare(sa, b.stages[*pick]);
        s.indexA = i, s.indexB = *pick;
        candidates.erase(pick);
        if (!diff.firstDivergence && s.diverges()) diff.firstDivergence = diff.stages.size();
        diff.stages.push_back(std::move(s));
    }
    diff.unpairedB = b.stages.size() - diff.stages.size();
    return diff;
}

std::string formatTraceDiff(const TraceDiff& diff, const TraceRun& a, const TraceRun& b, const std::string& nameA, const std::string& nameB,
                            std::optional<int> step) {
    auto describe = [](const TraceRun& r) {
        std::string w = r.run.whatIf.describe();
        return fmt::format("{} ({}), temperature {}, what-if: {}\n   prompt {:?}", r.modelPath, r.modelFormat, r.run.sampling.temperature,
                           w.empty() ? "none" : w, r.run.prompt);
    };
    std::string out = fmt::format("A: {}: {}\nB: {}: {}\n", nameA, describe(a), nameB, describe(b));
    out += fmt::format("Paired {} stages; {} only in A, {} only in B.\n", diff.stages.size(), diff.unpairedA, diff.unpairedB);
    if (!diff.firstDivergence) {
        out += fmt::format("No divergence: every paired stage is identical{}.\n",
                           std::all_of(diff.stages.begin(), diff.stages.end(), [](const auto& s) { return s.exact; })
                               ? ""
                               : " (exactly where values were stored, in their summaries elsewhere)");
        return out;
    }
    const StageDifference& f = diff.stages[*diff.firstDivergence];
    const StageInfo& info = stageInfo(f.stage);
    const std::string where = layerLabel(f.layer);
    out += fmt::format("First divergence: step {}, {}, stage {} {}: {}\n", f.step, where, info.number, info.key,
                       f.note.empty() ? fmt::format("{} differs by {}", f.tensor, cell(f.difference, f.exact)) : f.note);

    // The table, "-" for the layers where a stage does not happen.
    const int nLayers = std::max(a.args.n_layers, 0);
    const DiffTable table = diffTable(diff, nLayers, step);
    out += fmt::format("\nLargest difference per stage and layer, max |A - B| over {}\n"
                       "(>= a lower bound from the recorded summaries; inf: -inf against a number; absent: a tensor one run\n"
                       " lacks, or other shapes; differs: other token ids or log lines)\n",
                       step ? fmt::format("step {}", *step) : std::string("all steps"));
    out += fmt::format("{:<20} {:>9}", "stage", "outside");
    for (int l = 0; l < nLayers; ++l) out += fmt::format(" {:>9}", layerAxisLabel(l));
    out += "\n";
    for (size_t r = 0; r < table.stages.size(); ++r) {
        out += fmt::format("{:<20}", stageInfo(table.stages[r]).key);
        for (const StageDifference* c : table.cells[r]) out += fmt::format(" {:>9}", c ? diffCell(*c) : "-");
        out += "\n";
    }
    return out;
}

}  // namespace llama
