#include "page/run_page_data.h"

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <cctype>
#include <cstring>
#include <stdexcept>
#include <map>

#include "page/batch_page_data.h"
#include "page/patch_page_data.h"
#include "page/run_page.h"
#include "page/run_page_stream.h"
#include "state/capture_observer.h"
#include "state/trace_comparison.h"

namespace llama::page {

using nlohmann::json;
using namespace llama::viewer;

namespace {

// The page's bytes for one attention's arithmetic: a float per cell (q · k), three per row.
size_t arithmeticBytes(const json& a) {
    const size_t rows = a["heads"].get<size_t>() * a["rows"].get<size_t>();
    return (rows * a["cols"].get<size_t>() + 3 * rows) * 4 * 4 / 3 + 200;
}

// Adds the arithmetic to the attentions a reader is most likely to open first (the prefill, layer
// by layer, then the decode steps in order) while the page stays within `room` bytes; says on the
// page which were left out and how to get them. Returns the kept ones, in that order.
std::vector<size_t> addArithmetic(const HistorySnapshot& snap, json& attention, size_t room, const RunPageOptions& o, FloatArrays& floats) {
    std::vector<size_t> order(attention.size()), kept;
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
        const int sx = attention[x]["step"], sy = attention[y]["step"];
        return sx == sy ? attention[x]["layer"] < attention[y]["layer"] : sx < sy;
    });
    for (size_t i : order) {
        json& a = attention[i];
        const size_t bytes = arithmeticBytes(a);
        if (o.budgetBytes && bytes > room) {
            a["arithLeftOut"] = true;
            continue;
        }
        if (auto arith = attentionArithmetic(snap, a, o, floats)) {
            a["arith"] = std::move(*arith);
            room -= std::min(room, bytes);
            kept.push_back(i);
        }
    }
    return kept;
}

json arithmeticSummary(const json& attention, const RunPageOptions& o) {
    int kept = 0, leftOut = 0, without = 0;
    for (const json& a : attention) {
        if (a.contains("arith")) ++kept;
        else if (a.value("arithLeftOut", false)) ++leftOut;
        else ++without;
    }
    const std::string trace = pageFileName(o.tracePath);
    return {{"budgetMB", double(o.budgetBytes) / 1e6}, {"kept", kept}, {"leftOut", leftOut}, {"notRecorded", without},
            {"allOf", "llama-walkthrough export-html " + trace + " --page-budget 0 --out PAGE.html"}};
}

// A stages-by-layers table of the differences, over every step or one (the cells name their step).
json diffTableJson(const TraceDiff& diff, int nLayers, std::optional<int> step) {
    const DiffTable table = diffTable(diff, nLayers, step);
    json rows = json::array();
    for (size_t r = 0; r < table.stages.size(); ++r) {
        json cells = json::array();
        for (const StageDifference* d : table.cells[r]) {
            if (!d) cells.push_back(nullptr);
            else cells.push_back({{"text", diffCell(*d)}, {"d", pageNumber(d->difference)}, {"diverges", d->diverges()}, {"stage", d->indexA}, {"step", d->step}});
        }
        rows.push_back({{"key", stageInfo(table.stages[r]).key}, {"cells", cells}});
    }
    return rows;
}

// Per-step tables up to this many steps (a longer run's page keeps the all-steps table only).
constexpr size_t kCompareStepTables = 64;

json compareJson(std::shared_ptr<const TraceRun> run, const RunPageOptions& o) {
    const auto cmp = o.patch ? compareRuns(run, o.tracePath, o.patch->corrupt, o.tracePath) : compareTraces(run, o.tracePath, *o.comparePath);
    const TraceDiff& diff = cmp->diff;
    std::vector<int> steps;
    for (const StageDifference& d : diff.stages)
        if (steps.empty() || steps.back() != d.step) steps.push_back(d.step);
    json byStep = json::array();
    if (steps.size() <= kCompareStepTables)
        for (int step : steps) byStep.push_back({{"step", step}, {"table", diffTableJson(diff, run->args.n_layers, step)}});
    json perStage = json::array();
    for (size_t i = 0; i < cmp->pairOfA.size(); ++i) {
        const StageDifference* d = cmp->pairOf(int(i));
        perStage.push_back(d ? json(diffCell(*d)) : json(nullptr));
    }
    json first = nullptr;
    if (diff.firstDivergence) {
        const StageDifference& d = diff.stages[*diff.firstDivergence];
        first = {{"stage", d.indexA}, {"key", stageInfo(d.stage).key}, {"layer", d.layer}, {"where", whereLabel(d.layer)}, {"step", d.step},
                 {"tensor", d.tensor}, {"text", diffCell(d)}, {"note", d.note}};
    }
    const std::string nameA = pageFileName(o.tracePath) + (o.patch ? " (clean)" : ""),
                      nameB = o.patch ? pageFileName(o.tracePath) + " (corrupted)" : pageFileName(*o.comparePath);
    // What B was: its experiment and what it generated, beside A's.
    return {{"nameA", nameA}, {"nameB", nameB}, {"report", formatTraceDiff(diff, *run, cmp->b, nameA, nameB)},
            {"whatIfB", cmp->b.run.whatIf.describe()}, {"textB", cmp->b.generatedText}, {"promptB", cmp->b.run.prompt},
            {"first", first}, {"table", diffTableJson(diff, run->args.n_layers, std::nullopt)}, {"byStep", byStep}, {"perStage", perStage},
            {"unpairedA", diff.unpairedA}, {"unpairedB", diff.unpairedB}};
}

}  // namespace

void checkChapterBase(const std::string& base) {
    // A scheme is letters, digits, + - . before the first ':' that comes before any / ? #.
    const size_t colon = base.find(':');
    const size_t pathStart = base.find_first_of("/?#");
    if (colon == std::string::npos || (pathStart != std::string::npos && pathStart < colon)) return;  // relative
    std::string scheme = base.substr(0, colon);
    for (char& c : scheme) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (scheme == "http" || scheme == "https" || scheme == "file") return;
    throw std::invalid_argument("--chapter-base '" + base + "': only a relative path or an http:, https: or file: address can prefix the chapter links");
}



json runPageData(std::shared_ptr<const TraceRun> run, const RunPageOptions& o, const RunSoFar* soFar) {
    // The page's data is the stream's one part with every stage (run_page_stream.h), the
    // arithmetic added within the budget below, and what only a whole trace has: a comparison.
    RunPageStream stream(o, false);
    json data = stream.next(*run, run->stages.size(), soFar);
    const HistorySnapshot& snap = stream.snapshot();
    for (const char* key : {"reset", "stagesFrom", "stepsFrom", "tokensFrom", "tokensCount"}) data.erase(key);
    data["map"]["views"] = std::move(data["mapViews"]);
    data.erase("mapViews");
    data["compare"] = o.comparePath || o.patch ? compareJson(run, o) : json(nullptr);
    data["batch"] = batchPageJson(*run);
    data["patch"] = o.patch ? patchJson(*o.patch) : json(nullptr);
    // The arithmetic is most of a long run's page (a float per attention cell): it goes in last,
    // within what the budget leaves.
    // Measured as the page embeds it (scriptSafeJson), with room for the summary and the flags.
    const size_t reserve = 400 + 24 * data["attention"].size();
    size_t room = SIZE_MAX;
    if (o.budgetBytes) {
        const size_t used = scriptSafeJson(data).size() + o.fixedBytes + reserve;
        room = used < o.budgetBytes ? o.budgetBytes - used : 0;
    }
    std::vector<size_t> kept = addArithmetic(snap, data["attention"], room, o, stream.floats());
    data["arithmetic"] = arithmeticSummary(data["attention"], o);
    // The estimate is close, not exact: over the budget, the arithmetic read last goes first.
    if (o.budgetBytes)
        for (size_t size = scriptSafeJson(data).size() + o.fixedBytes; size > o.budgetBytes && !kept.empty(); kept.pop_back()) {
            json& a = data["attention"][kept.back()];
            size -= std::min(size, scriptSafeJson(a["arith"]).size());
            a.erase("arith");
            a["arithLeftOut"] = true;
            data["arithmetic"] = arithmeticSummary(data["attention"], o);
        }
    return data;
}

}  // namespace llama::page
