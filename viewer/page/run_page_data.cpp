#include "page/run_page_data.h"

#include <algorithm>
#include <bit>
#include <filesystem>
#include <cmath>
#include <cctype>
#include <cstring>
#include <stdexcept>
#include <map>

#include "io/base64.h"
#include "page/batch_page_data.h"
#include "page/patch_page_data.h"
#include "page/run_page.h"
#include "stages/numbering.h"
#include "stages/step_controller.h"
#include "state/attention_explain.h"
#include "state/capture_observer.h"
#include "state/forward_map.h"
#include "state/lens_grid.h"
#include "state/temperature_sweep.h"
#include "state/trace_comparison.h"
#include "state/trace_replay.h"

namespace llama::page {

using nlohmann::json;
using namespace llama::viewer;

namespace {

// JSON has no infinity: -inf scores and masks are written as strings, as the trace does.
json number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

// Every piece the trace names, by token id (prompt, generated, top and lens tokens).
std::map<int32_t, std::string> piecesOf(const TraceRun& run) {
    std::map<int32_t, std::string> pieces;
    for (const auto* list : {&run.promptTokens, &run.generatedTokens})
        for (const auto& t : *list) pieces[t.id] = t.piece;
    for (const auto& s : run.stages) {
        for (const auto& t : s.top) pieces[t.id] = t.piece;
        for (const auto& t : s.topPenalized) pieces[t.id] = t.piece;
        for (const auto& position : s.lens)
            for (const auto& t : position) pieces[t.id] = t.piece;
    }
    return pieces;
}

json tokenList(const std::vector<TokenProbability>& tokens, const std::map<int32_t, std::string>& pieces) {
    json out = json::array();
    for (const auto& t : tokens) {
        auto it = pieces.find(t.id);
        out.push_back({{"id", t.id}, {"piece", it == pieces.end() ? "#" + std::to_string(t.id) : it->second},
                       {"logit", number(t.logit)}, {"p", number(t.probability)}});
    }
    return out;
}

std::vector<float> valuesOf(const Tensor& t) {
    std::vector<float> v(size_t(t.numel()));
    for (size_t i = 0; i < v.size(); ++i) v[i] = t.floatAt(int64_t(i));
    return v;
}

// A file or folder by its own name: a page passed around never shows the folders of the machine
// that exported it.
std::string fileName(const std::string& path) {
    std::filesystem::path p(path);
    if (!p.has_filename()) p = p.parent_path();
    return p.filename().string();
}

// Where a stage is, in the log's numbering (layers from 1).
// Outside the layers the page shows no label (the stage says where it is).
std::string whereLabel(int layer) { return layer < 0 ? "" : layerLabel(layer); }

json stagesJson(const TraceRun& run) {
    json stages = json::array();
    for (size_t i = 0; i < run.stages.size(); ++i) {
        const TracedStage& s = run.stages[i];
        json tensors = json::array();
        for (const auto& t : s.tensors) {
            json tj = {{"name", t.name}, {"shape", shapeToString(t.shape)}, {"dtype", dtypeName(t.dtype)}};
            if (t.stats) tj["stats"] = {number(t.stats->min), number(t.stats->max), number(t.stats->mean)};
            // A gradient's L2 norm, as its backward stage's log line gives it.
            if (const std::string norm = isTrainingStage(s.stage) ? gradientNorm(s.message, t.name) : ""; !norm.empty()) tj["norm"] = norm;
            tensors.push_back(tj);
        }
        json sj = {{"key", s.info().key}, {"layer", s.layer}, {"where", whereLabel(s.layer)}, {"step", s.step},
                   {"startPos", s.startPos}, {"message", s.message}, {"tensors", tensors}};
        if (s.cacheFilled) sj["cache"] = run.cacheFill(i);
        stages.push_back(std::move(sj));
    }
    return stages;
}

json catalogJson(const std::string& chapterBase) {
    json catalog = json::array();
    for (const StageInfo& info : stageCatalog()) {
        std::string chapter(info.chapter);
        json c = {{"key", info.key}, {"number", info.number}, {"title", info.title}, {"chapter", chapter}, {"inBlock", info.inBlock}};
        // The site renders chapters/NN-name.md as NN-name.html, with an anchor per stage section.
        if (!chapterBase.empty() && chapter.size() > 3)
            c["link"] = chapterBase + chapter.substr(0, chapter.size() - 3) + ".html#stage-" + std::string(info.key);
        catalog.push_back(c);
    }
    return catalog;
}

// The sample stage's top tokens at the run's temperature, and the same logits swept over a few
// temperatures (tokensAtTemperature, the logits panel's slider).
json stepsJson(const HistorySnapshot& snap, const std::map<int32_t, std::string>& pieces) {
    static const float kTemperatures[] = {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.5f, 2.0f, 3.0f};
    json steps = json::array();
    for (const StepInfo& s : snap.steps) {
        json sweep = json::array();
        for (float t : kTemperatures) {
            const SweptTokens swept = tokensAtTemperature(nullptr, s.top, t, int(s.top.size()));
            sweep.push_back({{"t", t}, {"whole", swept.wholeVocabulary}, {"top", tokenList(swept.top, pieces)}});
        }
        steps.push_back({{"step", s.step}, {"startPos", s.startPos}, {"seqLen", s.seqLen}, {"top", tokenList(s.top, pieces)},
                         {"topPenalized", tokenList(s.topPenalized, pieces)}, {"sampled", s.sampled},
                         {"sampledP", number(s.sampledProbability)}, {"sweep", sweep}});
    }
    return steps;
}

// Each recorded attention: the scores after the softmax, per layer and step. Every cell's
// arithmetic (attentionArithmetic) is added afterwards, as far as the page's budget allows.
json attentionJson(const HistorySnapshot& snap) {
    json out = json::array();
    for (const auto& r : snap.records) {
        if (r->stage != StageId::ScoresSoftmax) continue;
        const CapturedTensor* scores = r->find("scores");
        if (!scores || !scores->data || scores->shape.size() != 3) continue;
        const int H = int(scores->shape[0]), R = int(scores->shape[1]), C = int(scores->shape[2]);
        out.push_back({{"stage", r->index}, {"step", r->step}, {"layer", r->layer}, {"startPos", r->startPos},
                       {"heads", H}, {"rows", R}, {"cols", C}, {"probs", floatArray(valuesOf(*scores->data))}});
    }
    return out;
}

// The page's bytes for one attention's arithmetic: a float per cell (q · k), three per row.
size_t arithmeticBytes(const json& a) {
    const size_t rows = a["heads"].get<size_t>() * a["rows"].get<size_t>();
    return (rows * a["cols"].get<size_t>() + 3 * rows) * 4 * 4 / 3 + 200;
}

// Where the trace holds the xq and keys (--trace-presoftmax), every cell's q · k and every row's
// softmax terms from explainAttentionRow, each row computed once (linear in the cells). The page
// shows q · k / scale + mask and exp(score - max) / sum from them, the mask being the step's.
std::optional<json> attentionArithmetic(const HistorySnapshot& snap, const json& a, const RunPageOptions& o) {
    const int step = a["step"], layer = a["layer"], H = a["heads"], R = a["rows"];
    const StageRecord* tr = findRecord(snap.records, step, layer, StageId::Transposes);
    const CapturedTensor* xq = tr ? tr->find("xq") : nullptr;
    const CapturedTensor* keys = tr ? tr->find("keys") : nullptr;
    if (!xq || !keys || !xq->data || !keys->data) return std::nullopt;
    const StageRecord* mr = findRecord(snap.records, step, -1, StageId::Mask);
    const CapturedTensor* mask = mr ? mr->find("mask") : nullptr;
    const Tensor* maskData = mask && mask->data ? &*mask->data : nullptr;
    std::vector<float> dot, rowMax, sumExp, visible;
    float scale = 0;
    int headDim = 0;
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < R; ++i) {
            if (o.cancelled && o.cancelled()) throw ExportCancelled("the export was interrupted: no page was written");
            const RowExplanation e = explainAttentionRow(*xq->data, *keys->data, maskData, h, i);
            for (double d : e.dot) dot.push_back(float(d));
            rowMax.push_back(float(e.rowMax)), sumExp.push_back(float(e.sumExp)), visible.push_back(float(e.visible));
            scale = e.scale, headDim = e.headDim;
        }
    return json{{"headDim", headDim}, {"scale", scale}, {"dot", floatArray(dot)}, {"rowMax", floatArray(rowMax)},
                {"sumExp", floatArray(sumExp)}, {"visible", floatArray(visible)}};
}

// Adds the arithmetic to the attentions a reader is most likely to open first (the prefill, layer
// by layer, then the decode steps in order) while the page stays within `room` bytes; says on the
// page which were left out and how to get them. Returns the kept ones, in that order.
std::vector<size_t> addArithmetic(const HistorySnapshot& snap, json& attention, size_t room, const RunPageOptions& o) {
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
        if (auto arith = attentionArithmetic(snap, a, o)) {
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
    const std::string trace = fileName(o.tracePath);
    return {{"budgetMB", double(o.budgetBytes) / 1e6}, {"kept", kept}, {"leftOut", leftOut}, {"notRecorded", without},
            {"allOf", "llama-walkthrough export-html " + trace + " --page-budget 0 --out PAGE.html"}};
}

json masksJson(const HistorySnapshot& snap) {
    json out = json::array();
    for (const auto& r : snap.records) {
        if (r->stage != StageId::Mask) continue;
        const CapturedTensor* mask = r->find("mask");
        if (!mask || !mask->data || mask->shape.size() != 2) continue;
        out.push_back({{"step", r->step}, {"startPos", r->startPos}, {"rows", mask->shape[0]}, {"cols", mask->shape[1]},
                       {"values", floatArray(valuesOf(*mask->data))}});
    }
    return out;
}

json lensJson(const HistorySnapshot& snap, const std::map<int32_t, std::string>& pieces) {
    json out = json::array();
    for (const StepInfo& s : snap.steps) {
        const LensGrid g = lensGrid(snap.records, s.step);
        if (g.empty()) continue;
        json rows = json::array();
        for (const auto& row : g.cells) {
            json cells = json::array();
            for (const auto& cell : row) cells.push_back(tokenList(cell, pieces));
            rows.push_back(cells);
        }
        out.push_back({{"step", g.step}, {"startPos", g.startPos}, {"positions", g.positions}, {"layers", g.layers}, {"cells", rows}});
    }
    return out;
}

// The forward-pass map as the viewer's Map panel builds it (state/forward_map.h): boxes, arrows
// and sections in abstract units, and per token step and layer of the stack which boxes ran or
// were skipped and the shape each arrow carries. A training step's map has the backward column,
// and its arrows carry their routes (around the backward boxes; the gradient flows up).
json mapJson(const HistorySnapshot& snap, int nLayers, bool backward) {
    const ForwardMap map = buildForwardMap(nLayers, {0, false, backward});
    json boxes = json::array(), arrows = json::array(), sections = json::array(), views = json::array();
    for (const MapBox& b : map.boxes) {
        json box = {{"key", b.key}, {"stage", stageInfo(b.stage).key}, {"label", b.label}, {"title", b.title}, {"number", b.number},
                    {"inBlock", b.inBlock}, {"x", b.x}, {"y", b.y}, {"w", b.w}, {"h", b.h}};
        if (b.backward) box["backward"] = true;
        boxes.push_back(std::move(box));
    }
    for (const MapArrow& a : map.arrows) {
        json arrow = {{"from", a.from}, {"to", a.to}, {"tensor", a.tensor}, {"side", a.side}};
        // Side inputs stay lines from their box (the page names them by where they come from).
        if (backward && a.route.kind != RouteKind::SideInput) {
            json points = json::array();
            for (const MapPoint& p : a.route.points) points.push_back({p.x, p.y});
            arrow["route"] = points;
        }
        arrows.push_back(std::move(arrow));
    }
    for (const MapSection& s : map.sections)
        sections.push_back({{"title", s.title}, {"block", s.block}, {"x", s.x}, {"y", s.y}, {"w", s.w}, {"h", s.h}});
    // The generation loop's steps; a training window's forward pass has no loop, its records' step.
    std::map<int, const StageRecord*> lastOfStep;  // the step's last record: every box of the step has run
    for (const auto& r : snap.records)
        if (backward || std::any_of(snap.steps.begin(), snap.steps.end(), [&](const StepInfo& s) { return s.step == r->step; }))
            lastOfStep[r->step] = r.get();
    for (const auto& [step, last] : lastOfStep) {
        for (int layer = 0; layer < nLayers; ++layer) {
            const ForwardMapView v = viewForwardMap(map, snap.records, last, layer);
            json skipped = json::array(), shapes = json::array();
            for (size_t i = 0; i < v.boxes.size(); ++i)
                if (v.boxes[i].state == BoxState::Skipped) skipped.push_back(i);
            for (const MapArrowView& a : v.arrows) shapes.push_back(a.shape);
            views.push_back({{"step", step}, {"layer", layer}, {"skipped", skipped}, {"arrows", shapes}});
        }
    }
    return {{"layers", map.layers}, {"width", map.width}, {"height", map.height}, {"boxes", boxes}, {"arrows", arrows},
            {"sections", sections}, {"views", views}};
}

// A stages-by-layers table of the differences, over every step or one (the cells name their step).
json diffTableJson(const TraceDiff& diff, int nLayers, std::optional<int> step) {
    const DiffTable table = diffTable(diff, nLayers, step);
    json rows = json::array();
    for (size_t r = 0; r < table.stages.size(); ++r) {
        json cells = json::array();
        for (const StageDifference* d : table.cells[r]) {
            if (!d) cells.push_back(nullptr);
            else cells.push_back({{"text", diffCell(*d)}, {"d", number(d->difference)}, {"diverges", d->diverges()}, {"stage", d->indexA}, {"step", d->step}});
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
    const std::string nameA = fileName(o.tracePath) + (o.patch ? " (clean)" : ""),
                      nameB = o.patch ? fileName(o.tracePath) + " (corrupted)" : fileName(*o.comparePath);
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

namespace {
// A float's bits (memcpy: Emscripten 3.1.6's libc++, the browser build's, has no std::bit_cast).
uint32_t bitsOf(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits;
}
}  // namespace

json floatArray(const std::vector<float>& values) {
    static_assert(std::endian::native == std::endian::little, "the page reads little-endian float32");
    // bfloat16 tensors (the engine's scores and probabilities) come from the trace as float32 whose
    // low 16 bits are zero: their high halves alone are the same numbers in half the bytes.
    const bool bf16 = std::all_of(values.begin(), values.end(), [](float v) { return (bitsOf(v) & 0xFFFFu) == 0; });
    if (!bf16 || values.empty()) return {{"dtype", "f32"}, {"n", values.size()}, {"b64", encodeBase64(values.data(), values.size() * sizeof(float))}};
    std::vector<uint16_t> high(values.size());
    for (size_t i = 0; i < values.size(); ++i) high[i] = uint16_t(bitsOf(values[i]) >> 16);
    return {{"dtype", "bf16"}, {"n", values.size()}, {"b64", encodeBase64(high.data(), high.size() * sizeof(uint16_t))}};
}

json runPageData(std::shared_ptr<const TraceRun> run, const RunPageOptions& o) {
    // The trace replayed as the viewer replays it, nothing dropped (MemoryPolicy's limits off).
    CaptureObserver capture(run->run.sampling, run->options.topK, MemoryPolicy{SIZE_MAX, SIZE_MAX});
    StepController controller(StepController::Mode::Continue);
    replayTrace(*run, capture, controller);
    HistorySnapshot snap;
    snap.version = 0;
    capture.snapshot(snap);

    const auto pieces = piecesOf(*run);
    const ModelArgs& a = run->args;
    json tokens = json::array();
    for (const auto& t : run->promptTokens) tokens.push_back({{"id", t.id}, {"piece", t.piece}, {"special", t.special}, {"generated", false}});
    for (const auto& t : run->generatedTokens) tokens.push_back({{"id", t.id}, {"piece", t.piece}, {"special", t.special}, {"generated", true}});
    const SamplingSettings& s = run->run.sampling;
    json data = {
        {"format", 1},
        {"trace", fileName(o.tracePath)},
        {"model", {{"format", run->modelFormat}, {"path", fileName(run->modelPath)}, {"dim", a.dim}, {"nLayers", a.n_layers}, {"nHeads", a.n_heads},
                   {"nKvHeads", a.n_kv_heads}, {"headDim", a.dim / a.n_heads}, {"vocab", a.vocab_size}}},
        {"run", {{"prompt", run->run.prompt}, {"maxTokens", run->run.maxTokens}, {"temperature", s.temperature}, {"topK", s.topK},
                 {"topP", s.topP}, {"seed", s.seed}, {"dryRun", run->run.dryRun}, {"text", run->generatedText}, {"stopReason", run->stopReason}}},
        {"whatIf", run->run.whatIf.describe()},
        {"grammar", run->run.grammar},
        {"tokens", tokens},
        {"catalog", catalogJson(o.chapterBase)},
        {"stages", stagesJson(*run)},
        {"steps", stepsJson(snap, pieces)},
        {"attention", attentionJson(snap)},
        {"masks", masksJson(snap)},
        {"lens", lensJson(snap, pieces)},
        {"map", mapJson(snap, a.n_layers, run->run.training.has_value())},
        {"training", run->run.training ? json{{"step", run->run.training->step}, {"window", run->run.training->window},
                                              {"windows", run->run.training->windows}, {"learningRate", run->run.training->learningRate}}
                                       : json(nullptr)},
        {"compare", o.comparePath || o.patch ? compareJson(run, o) : json(nullptr)},
        {"batch", batchPageJson(*run)},
        {"patch", o.patch ? patchJson(*o.patch) : json(nullptr)},
    };
    // The arithmetic is most of a long run's page (a float per attention cell): it goes in last,
    // within what the budget leaves.
    // Measured as the page embeds it (scriptSafeJson), with room for the summary and the flags.
    const size_t reserve = 400 + 24 * data["attention"].size();
    size_t room = SIZE_MAX;
    if (o.budgetBytes) {
        const size_t used = scriptSafeJson(data).size() + o.fixedBytes + reserve;
        room = used < o.budgetBytes ? o.budgetBytes - used : 0;
    }
    std::vector<size_t> kept = addArithmetic(snap, data["attention"], room, o);
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
