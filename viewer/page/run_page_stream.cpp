#include "page/run_page_stream.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>

#include "io/base64.h"
#include "ml/ops.h"
#include "stages/numbering.h"
#include "state/attention_explain.h"
#include "state/forward_map.h"
#include "state/lens_grid.h"
#include "state/temperature_sweep.h"

namespace llama::page {

using nlohmann::json;
using namespace llama::viewer;

json pageNumber(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

std::string pageFileName(const std::string& path) {
    std::filesystem::path p(path);
    if (!p.has_filename()) p = p.parent_path();
    return p.filename().string();
}

std::string whereLabel(int layer) { return layer < 0 ? "" : layerLabel(layer); }

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

json FloatArrays::operator()(const std::vector<float>& values) {
    if (!binary_) return floatArray(values);
    // As floatArray: bfloat16 values (low halves zero) as their high halves. Each array starts at
    // a multiple of 4 bytes, where a Float32Array may be laid over the page's buffer.
    const bool bf16 = !values.empty() && std::all_of(values.begin(), values.end(), [](float v) { return (bitsOf(v) & 0xFFFFu) == 0; });
    bytes_.resize((bytes_.size() + 3) / 4 * 4);
    const size_t at = bytes_.size();
    if (bf16) {
        bytes_.resize(at + values.size() * 2);
        for (size_t i = 0; i < values.size(); ++i) {
            const uint16_t high = uint16_t(bitsOf(values[i]) >> 16);
            std::memcpy(bytes_.data() + at + 2 * i, &high, 2);
        }
    } else {
        bytes_.resize(at + values.size() * 4);
        std::memcpy(bytes_.data() + at, values.data(), values.size() * 4);
    }
    return {{"dtype", bf16 ? "bf16" : "f32"}, {"n", values.size()}, {"at", at}};
}

namespace {

json tokenList(const std::vector<TokenProbability>& tokens, const std::map<int32_t, std::string>& pieces) {
    json out = json::array();
    for (const auto& t : tokens) {
        auto it = pieces.find(t.id);
        out.push_back({{"id", t.id}, {"piece", it == pieces.end() ? "#" + std::to_string(t.id) : it->second},
                       {"logit", pageNumber(t.logit)}, {"p", pageNumber(t.probability)}});
    }
    return out;
}

std::vector<float> valuesOf(const Tensor& t) {
    if (t.dtype() == DType::F32 && t.isContiguous()) return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());  // a trace's values
    std::vector<float> v(size_t(t.numel()));
    for (size_t i = 0; i < v.size(); ++i) v[i] = t.floatAt(int64_t(i));
    return v;
}

// Stage i; `cacheFill` holds each layer's KV-cache fill after the stages before it (TraceRun::
// cacheFill, kept up to date stage by stage rather than counted from the start).
json stageJson(const TraceRun& run, size_t i, std::vector<int>& cacheFill) {
    const TracedStage& s = run.stages[i];
    json tensors = json::array();
    for (const auto& t : s.tensors) {
        json tj = {{"name", t.name}, {"shape", shapeToString(t.shape)}, {"dtype", dtypeName(t.dtype)}};
        if (t.stats) tj["stats"] = {pageNumber(t.stats->min), pageNumber(t.stats->max), pageNumber(t.stats->mean)};
        // A gradient's L2 norm, as its backward stage's log line gives it.
        if (const std::string norm = isTrainingStage(s.stage) ? gradientNorm(s.message, t.name) : ""; !norm.empty()) tj["norm"] = norm;
        tensors.push_back(tj);
    }
    json sj = {{"key", s.info().key}, {"layer", s.layer}, {"where", whereLabel(s.layer)}, {"step", s.step},
               {"startPos", s.startPos}, {"message", s.message}, {"tensors", tensors}};
    cacheFill.resize(size_t(std::max(run.args.n_layers, 0)));
    if (s.cacheFilled) {
        if (s.layer >= 0 && size_t(s.layer) < cacheFill.size()) cacheFill[size_t(s.layer)] = *s.cacheFilled;
        sj["cache"] = cacheFill;
    }
    return sj;
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

// A step's top tokens at the run's temperature, and the same logits swept over a few temperatures
// (tokensAtTemperature, the logits panel's slider).
json stepJson(const StepInfo& s, const std::map<int32_t, std::string>& pieces) {
    static const float kTemperatures[] = {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.5f, 2.0f, 3.0f};
    json sweep = json::array();
    for (float t : kTemperatures) {
        const SweptTokens swept = tokensAtTemperature(nullptr, s.top, t, int(s.top.size()));
        sweep.push_back({{"t", t}, {"whole", swept.wholeVocabulary}, {"top", tokenList(swept.top, pieces)}});
    }
    return {{"step", s.step}, {"startPos", s.startPos}, {"seqLen", s.seqLen}, {"top", tokenList(s.top, pieces)},
            {"topPenalized", tokenList(s.topPenalized, pieces)}, {"sampled", s.sampled},
            {"sampledP", pageNumber(s.sampledProbability)}, {"sweep", sweep}};
}

// A recorded attention: the scores after the softmax of one layer at one step.
std::optional<json> attentionJson(const StageRecord& r, FloatArrays& floats) {
    if (r.stage != StageId::ScoresSoftmax) return std::nullopt;
    const CapturedTensor* scores = r.find("scores");
    if (!scores || !scores->data || scores->shape.size() != 3) return std::nullopt;
    const int H = int(scores->shape[0]), R = int(scores->shape[1]), C = int(scores->shape[2]);
    return json{{"stage", r.index}, {"step", r.step}, {"layer", r.layer}, {"startPos", r.startPos},
                {"heads", H}, {"rows", R}, {"cols", C}, {"probs", floats(valuesOf(*scores->data))}};
}

std::optional<json> maskJson(const StageRecord& r, FloatArrays& floats) {
    if (r.stage != StageId::Mask) return std::nullopt;
    const CapturedTensor* mask = r.find("mask");
    if (!mask || !mask->data || mask->shape.size() != 2) return std::nullopt;
    return json{{"step", r.step}, {"startPos", r.startPos}, {"rows", mask->shape[0]}, {"cols", mask->shape[1]},
                {"values", floats(valuesOf(*mask->data))}};
}

std::optional<json> lensJson(const HistorySnapshot& snap, int step, const std::map<int32_t, std::string>& pieces) {
    const LensGrid g = lensGrid(snap.records, step);
    if (g.empty()) return std::nullopt;
    json rows = json::array();
    for (const auto& row : g.cells) {
        json cells = json::array();
        for (const auto& cell : row) cells.push_back(tokenList(cell, pieces));
        rows.push_back(cells);
    }
    return json{{"step", g.step}, {"startPos", g.startPos}, {"positions", g.positions}, {"layers", g.layers}, {"cells", rows}};
}

// The forward-pass map as the viewer's Map panel builds it (state/forward_map.h): boxes, arrows
// and sections in abstract units. A training step's map has the backward column, and its arrows
// carry their routes (around the backward boxes; the gradient flows up).
json mapJson(const ForwardMap& map, bool backward) {
    json boxes = json::array(), arrows = json::array(), sections = json::array();
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
    return {{"layers", map.layers}, {"width", map.width}, {"height", map.height}, {"boxes", boxes}, {"arrows", arrows},
            {"sections", sections}, {"views", json::array()}};
}

// Per layer of the stack, which boxes of a step ran or were skipped and the shape each arrow
// carries, as the step's records so far (up to `last`) leave them.
void addMapViews(const ForwardMap& map, const HistorySnapshot& snap, const StageRecord* last, json& views) {
    for (int layer = 0; layer < map.layers; ++layer) {
        const ForwardMapView v = viewForwardMap(map, snap.records, last, layer);
        json skipped = json::array(), shapes = json::array();
        for (size_t i = 0; i < v.boxes.size(); ++i)
            if (v.boxes[i].state == BoxState::Skipped) skipped.push_back(i);
        for (const MapArrowView& a : v.arrows) shapes.push_back(a.shape);
        views.push_back({{"step", last->step}, {"layer", layer}, {"skipped", skipped}, {"arrows", shapes}});
    }
}

void addPieces(std::map<int32_t, std::string>& pieces, const TracedStage& s) {
    for (const auto* top : {&s.top, &s.topPenalized})
        for (const auto& t : *top) pieces[t.id] = t.piece;
    for (const auto& position : s.lens)
        for (const auto& t : position) pieces[t.id] = t.piece;
}

}  // namespace

std::optional<json> attentionArithmetic(const HistorySnapshot& snap, const json& a, const RunPageOptions& o, FloatArrays& floats) {
    const int step = a["step"], layer = a["layer"], H = a["heads"], R = a["rows"];
    const StageRecord* tr = findRecord(snap.records, step, layer, StageId::Transposes);
    const CapturedTensor* xq = tr ? tr->find("xq") : nullptr;
    const CapturedTensor* keys = tr ? tr->find("keys") : nullptr;
    if (!xq || !keys || !xq->data || !keys->data) return std::nullopt;
    // As F32 rows once, for every row's sums: a live page's replay holds them compact (bfloat16,
    // the keys once per KV head, compactTraceValues), the same floats.
    const auto rows = [](const Tensor& t) { return t.dtype() == DType::F32 && t.isContiguous() ? t : ml::ToFloat32(ml::Contiguous(t)); };
    const Tensor xqRows = rows(*xq->data), keyRows = rows(*keys->data);
    const StageRecord* mr = findRecord(snap.records, step, -1, StageId::Mask);
    const CapturedTensor* mask = mr ? mr->find("mask") : nullptr;
    const Tensor* maskData = mask && mask->data ? &*mask->data : nullptr;
    std::vector<float> dot, rowMax, sumExp, visible;
    float scale = 0;
    int headDim = 0;
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < R; ++i) {
            if (o.cancelled && o.cancelled()) throw ExportCancelled("the export was interrupted: no page was written");
            const RowExplanation e = explainAttentionRow(xqRows, keyRows, maskData, h, i);
            for (double d : e.dot) dot.push_back(float(d));
            rowMax.push_back(float(e.rowMax)), sumExp.push_back(float(e.sumExp)), visible.push_back(float(e.visible));
            scale = e.scale, headDim = e.headDim;
        }
    return json{{"headDim", headDim}, {"scale", scale}, {"dot", floats(dot)}, {"rowMax", floats(rowMax)},
                {"sumExp", floats(sumExp)}, {"visible", floats(visible)}};
}

RunPageStream::RunPageStream(RunPageOptions options, bool binary) : options_(std::move(options)), floats_(binary) {}

std::optional<json> RunPageStream::arithmetic(int step, int layer) {
    const StageRecord* r = findRecord(snap_.records, step, layer, StageId::ScoresSoftmax);
    const CapturedTensor* scores = r ? r->find("scores") : nullptr;
    if (!scores || scores->shape.size() != 3) return std::nullopt;
    return attentionArithmetic(snap_, json{{"step", step}, {"layer", layer}, {"heads", scores->shape[0]}, {"rows", scores->shape[1]}}, options_, floats_);
}

json RunPageStream::header(const TraceRun& run) {
    const ModelArgs& a = run.args;
    const bool backward = run.run.training.has_value();
    return {
        {"format", 1},
        {"reset", true},
        {"trace", pageFileName(options_.tracePath)},
        {"model", {{"format", run.modelFormat}, {"path", pageFileName(run.modelPath)}, {"dim", a.dim}, {"nLayers", a.n_layers}, {"nHeads", a.n_heads},
                   {"nKvHeads", a.n_kv_heads}, {"headDim", a.dim / a.n_heads}, {"vocab", a.vocab_size}}},
        {"whatIf", run.run.whatIf.describe()},
        {"grammar", run.run.grammar},
        {"catalog", catalogJson(options_.chapterBase)},
        {"map", mapJson(buildForwardMap(a.n_layers, {0, false, backward, trainsLora(run.stages)}), backward)},
        {"training", run.run.training ? json{{"step", run.run.training->step}, {"window", run.run.training->window},
                                             {"windows", run.run.training->windows}, {"learningRate", run.run.training->learningRate}}
                                      : json(nullptr)},
        {"compare", nullptr},
        {"batch", nullptr},
        {"patch", nullptr},
    };
}

// The prompt's tokens and those sampled up to the part's last stage (END's list once the run is
// shown to its end); sent from the first that differs from what was sent.
json RunPageStream::tokensPart(const TraceRun& run, size_t upTo, const RunSoFar* soFar) {
    const bool whole = upTo == run.stages.size() && !run.stopReason.empty();  // END read, every stage shown
    std::vector<std::pair<TraceToken, bool>> tokens;
    for (const auto& t : run.promptTokens.empty() && soFar ? soFar->promptTokens : run.promptTokens) tokens.emplace_back(t, false);
    for (const auto& t : whole ? run.generatedTokens : sampled_) tokens.emplace_back(t, true);
    size_t from = 0;
    auto same = [](const std::pair<TraceToken, bool>& x, const std::pair<TraceToken, bool>& y) {
        return x.first.id == y.first.id && x.first.piece == y.first.piece && x.first.special == y.first.special && x.second == y.second;
    };
    while (from < tokens.size() && from < tokensSent_.size() && same(tokens[from], tokensSent_[from])) ++from;
    json out = json::array();
    for (size_t i = from; i < tokens.size(); ++i) {
        const auto& [t, generated] = tokens[i];
        out.push_back({{"id", t.id}, {"piece", t.piece}, {"special", t.special}, {"generated", generated}});
    }
    tokensSent_ = std::move(tokens);
    return json{{"tokensFrom", from}, {"tokensCount", tokensSent_.size()}, {"tokens", out}};
}

json RunPageStream::next(const TraceRun& run, size_t upTo, const RunSoFar* soFar) {
    upTo = std::min(upTo, run.stages.size());
    json part = json::object();
    if (!capture_) {
        // The trace replayed as the viewer replays it, nothing dropped (MemoryPolicy's limits off).
        capture_.emplace(run.run.sampling, run.options.topK, MemoryPolicy{SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX});
        part = header(run);
        for (const auto* list : {&run.promptTokens, &run.generatedTokens})
            for (const auto& t : *list) pieces_[t.id] = t.piece;
        if (soFar)
            for (const auto& t : soFar->promptTokens) pieces_[t.id] = t.piece;
    }
    const size_t from = stagesSent_;
    for (size_t i = from; i < upTo; ++i) {
        const TracedStage& s = run.stages[i];
        addPieces(pieces_, s);
        if (s.stage == StageId::Sample)
            if (const TracedTensor* t = s.tensor("next"); t && !t->tokens.empty()) {
                sampled_.push_back(t->tokens.front());
                pieces_[t->tokens.front().id] = t->tokens.front().piece;
            }
    }
    replayTraceUpTo(run, upTo, cursor_, *capture_, controller_);
    capture_->snapshot(snap_);

    json stages = json::array();
    for (size_t i = from; i < upTo; ++i) stages.push_back(stageJson(run, i, cacheFill_));
    part["stagesFrom"] = from;
    part["stages"] = std::move(stages);

    // The last step sent may have changed (its top tokens and sampled token come at its last stages).
    const size_t stepsFrom = stepsSent_ ? stepsSent_ - 1 : 0;
    json steps = json::array();
    for (size_t i = stepsFrom; i < snap_.steps.size(); ++i) steps.push_back(stepJson(snap_.steps[i], pieces_));
    stepsSent_ = snap_.steps.size();
    part["stepsFrom"] = stepsFrom;
    part["steps"] = std::move(steps);

    json attention = json::array(), masks = json::array(), lens = json::array(), views = json::array();
    std::set<int> touched;  // steps with new records
    for (size_t i = from; i < upTo && i < snap_.records.size(); ++i) {
        const StageRecord& r = *snap_.records[i];
        touched.insert(r.step);
        if (auto a = attentionJson(r, floats_)) attention.push_back(std::move(*a));
        if (auto m = maskJson(r, floats_)) masks.push_back(std::move(*m));
    }
    const ForwardMap map = buildForwardMap(run.args.n_layers, {0, false, run.run.training.has_value(), trainsLora(run.stages)});
    for (int step : touched) {
        // The generation loop's steps; a training window's forward pass has no loop, its records' step.
        const bool looped = std::any_of(snap_.steps.begin(), snap_.steps.end(), [&](const StepInfo& s) { return s.step == step; });
        if (looped)
            if (auto g = lensJson(snap_, step, pieces_)) lens.push_back(std::move(*g));
        if (looped || run.run.training) {
            const StageRecord* last = nullptr;  // the step's last record: every box of the step so far has run
            for (size_t i = upTo; i-- > 0 && !last;)
                if (snap_.records[i]->step == step) last = snap_.records[i].get();
            if (last) addMapViews(map, snap_, last, views);
        }
    }
    part["attention"] = std::move(attention);
    part["masks"] = std::move(masks);
    part["lens"] = std::move(lens);
    part["mapViews"] = std::move(views);

    const SamplingSettings& s = run.run.sampling;
    const bool whole = upTo == run.stages.size() && !run.stopReason.empty();
    std::string text, stopReason;
    if (whole) text = run.generatedText, stopReason = run.stopReason;
    else if (soFar) text = soFar->text, stopReason = soFar->stopReason;
    else {
        for (const TraceToken& t : sampled_) text += t.piece;
        stopReason = "stepping: stage " + std::to_string(upTo) + " of " + std::to_string(run.stages.size());
    }
    part["run"] = {{"prompt", run.run.prompt}, {"maxTokens", run.run.maxTokens}, {"temperature", s.temperature}, {"topK", s.topK},
                   {"topP", s.topP}, {"seed", s.seed}, {"dryRun", run.run.dryRun}, {"text", text}, {"stopReason", stopReason}};
    part.update(tokensPart(run, upTo, soFar));
    stagesSent_ = upTo;
    return part;
}

}  // namespace llama::page
