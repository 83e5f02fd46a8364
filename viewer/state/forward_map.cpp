#include "state/forward_map.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace llama::viewer {

namespace {
// Geometry in abstract units: every column holds up to three boxes side by side.
constexpr float kColumnWidth = 3.0f, kColumnGap = 1.1f, kRowHeight = 1.0f, kBoxHeight = 0.52f, kLaneGap = 0.15f;
constexpr float kTop = 0.7f;   // room for the sections' titles (and the block's layer tabs)
constexpr float kLeft = 0.35f;  // room for the first section's frame
constexpr float kBandGap = 1.2f;  // between bands: room for the next band's titles and the arrows into it
constexpr float kBackwardGap = 0.5f;  // between a column's forward part and its backward part

// From one column's left edge to the next's: its forward part, its backward part, the gap.
float columnPitch(bool backward) { return kColumnWidth + (backward ? kBackwardGap + kColumnWidth : 0.0f) + kColumnGap; }

// How the diagram names each stage (the catalog's titles are sentences). A stage missing here
// is drawn with its catalog title, so a new stage shows up on the map without touching this file.
const std::map<std::string_view, std::string_view> kLabels = {
    {"tokenize", "tokenize"},          {"tokens_tensor", "tokens"},         {"sequence_loop", "this step's tokens"},
    {"input_embeddings", "embedding"}, {"freqs_cis", "angles"},             {"mask", "mask"},
    {"block", "block input x"},        {"attention_norm", "RMSNorm"},       {"attention", "attention"},
    {"reshape_heads", "split heads"},  {"rotary", "RoPE"},                  {"cache_write", "KV cache write"},
    {"cache_read", "KV cache read"},   {"repeat_kv", "repeat KV"},          {"transposes", "transpose"},
    {"scores_matmul", "Q x K^T"},      {"scores_scale", "/ sqrt(HeadDim)"}, {"scores_mask", "+ mask"},
    {"scores_softmax", "softmax"},     {"attention_values", "x values"},    {"attention_reshape", "merge heads"},
    {"attention_wo", "wo"},            {"attention_residual", "+ residual"}, {"ffn_norm", "RMSNorm"},
    {"ffn_forward", "feed-forward"},   {"ffn_gate", "gate"},                {"ffn_silu", "SiLU"},
    {"ffn_up", "up"},                  {"ffn_multiply", "SiLU(gate) x up"}, {"ffn_down", "down"},
    {"ffn_residual", "+ residual"},    {"output_norm", "final RMSNorm"},    {"output_projection", "output"},
    {"logits", "logits"},              {"sample", "sampling"},
};
// The Q/K/V stage's lanes: one box per recorded tensor.
const std::map<std::string_view, std::string_view> kLaneLabels = {{"xq", "Q"}, {"xk", "K"}, {"xv", "V"}};

// The layout, read off the walkthrough's diagram: where a new column starts (the outside stages,
// then the block in three columns, then the output), and which stages run beside another (they
// share its row and its input) rather than after the previous one.
const std::vector<std::string_view> kColumnStarts = {"block", "transposes", "ffn_norm", "output_norm"};
// A box beside another takes the same input and its result joins the flow at `joins` ("": a side input).
struct Beside {
    std::string_view of, joins;
};
const std::map<std::string_view, Beside> kBeside = {{"mask", {"freqs_cis", ""}}, {"ffn_up", {"ffn_gate", "ffn_multiply"}}};
// Prepared once per step and used inside the blocks: not a step of the flow.
const std::vector<std::string_view> kOffFlow = {"freqs_cis", "mask"};
// Side inputs and the residual stream: drawn as thin arrows to where they are used.
const std::map<std::string_view, std::vector<std::string_view>> kSideInputs = {
    {"freqs_cis", {"rotary"}}, {"mask", {"scores_mask"}}, {"block", {"attention_residual"}}, {"attention_residual", {"ffn_residual"}}};
// The recorded tensor each side arrow carries (the residual stream is the block's x, then h).
const std::map<std::string_view, std::string_view> kSideTensor = {{"block", "x"}, {"attention_residual", "h"}};

// A backward box is named after the forward stage it differentiates (the gradient of its inputs),
// or the two it stands for.
const std::map<std::string_view, std::string_view> kBackwardLabels = {
    {"loss", "loss"}, {"qkv_backward", "\u2202 Q, K, V"}, {"ffn_gate_up_backward", "\u2202 gate, up"}, {"lora_backward", "\u2202 LoRA A, B"}};
std::string backwardLabel(std::string_view key, std::string_view forwardLabel) {
    const auto label = kBackwardLabels.find(key);
    return label != kBackwardLabels.end() ? std::string(label->second) : "\u2202 " + std::string(forwardLabel);
}

std::vector<std::string> recordNames(std::string_view records) {
    std::vector<std::string> names;
    size_t start = 0;
    while (start < records.size()) {
        size_t comma = records.find(',', start);
        if (comma == std::string_view::npos) comma = records.size();
        if (comma > start) names.emplace_back(records.substr(start, comma - start));
        start = comma + 1;
    }
    return names;
}

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// The gradient a backward stage hands on: the first it records (d<value>: dLogits, not the loss's logits).
std::string firstGradient(const std::vector<std::string>& names) {
    for (const auto& n : names)
        if (n.size() > 1 && n[0] == 'd' && std::isupper(static_cast<unsigned char>(n[1]))) return n;
    return names.empty() ? "" : names[0];
}

// The tensor flowing from `a` to `b`: one `b` records too (under the same name), else `a`'s own.
std::string carried(const MapBox& a, const MapBox& b) {
    if (!a.key.starts_with("qkv.") && !a.backward) {
        auto bNames = recordNames(stageInfo(b.stage).records);
        for (const auto& n : recordNames(stageInfo(a.stage).records))
            if (contains(bNames, n)) return n;
    }
    return a.tensor;
}

const CapturedTensor* findTensor(const StageRecord& r, const std::string& name) {
    if (name.empty()) return r.tensors.empty() ? nullptr : &r.tensors[0];
    return r.find(name);
}

// The input of a box's own tensor, when the box changes its shape: the same tensor at the stage
// before (split heads: xq [10 256] -> [10 8 32]).
std::string reshapeText(const ForwardMap& map, int box, const StageRecord& r, const std::vector<int>& recordOf,
                        const std::vector<std::shared_ptr<const StageRecord>>& records) {
    const MapBox& b = map.boxes[size_t(box)];
    const CapturedTensor* out = findTensor(r, b.tensor);
    if (!out) return "";
    std::string text = shapeToString(out->shape);
    for (const auto& a : map.arrows) {
        if (a.to != box || a.side || recordOf[size_t(a.from)] < 0) continue;
        const StageRecord& in = *records[size_t(recordOf[size_t(a.from)])];
        const CapturedTensor* t = findTensor(in, a.tensor);
        if (t && t->name == out->name && t->shape != out->shape) return shapeToString(t->shape) + " -> " + text;
    }
    return text;
}
}  // namespace

int ForwardMap::find(std::string_view key) const {
    for (size_t i = 0; i < boxes.size(); ++i)
        if (boxes[i].key == key) return int(i);
    return -1;
}

int ForwardMap::findStage(StageId stage) const {
    for (size_t i = 0; i < boxes.size(); ++i)
        if (boxes[i].stage == stage) return int(i);
    return -1;
}

// The map draws one sequence's forward pass: the three tasks' own marks, an experiment's stage and
// the stages only a batch of sequences makes (llama-walkthrough batch, speculative decoding) stay off it.
bool mapOmits(StageId stage, bool backward, bool lora) {
    // The loss and the backward pass: only in a map of a training step, which has no prompt to
    // tokenize, no generation loop and no sampling (a window of the token stream, its next tokens);
    // the adapters' backward only in a LoRA step's.
    if (stage == StageId::LoraBackward) return !(backward && lora);
    if (isTrainingStage(stage)) return !backward;
    if (backward && (stage == StageId::Tokenize || stage == StageId::TokensTensor || stage == StageId::SequenceLoop || stage == StageId::Sample))
        return true;
    switch (stage) {
        case StageId::QKVSchedule:
        case StageId::QKVTask:
        case StageId::ControlVector:
        case StageId::LoraProduct:
        case StageId::UBatchTokens:
        case StageId::KvShift:
        case StageId::KvSlot:
        case StageId::BatchPositions:
        case StageId::KvMask:
        case StageId::ContextShift:
        case StageId::Speculation: return true;
        default: return false;
    }
}

bool trainsLora(const std::vector<TracedStage>& stages) {
    return std::any_of(stages.begin(), stages.end(), [](const TracedStage& s) { return s.stage == StageId::LoraBackward; });
}

// Each backward stage's key is its forward stage's with "_backward"; two differentiate more than one.
StageId forwardStageOf(StageId trainingStage) {
    if (trainingStage == StageId::Loss) return StageId::Logits;
    if (trainingStage == StageId::LoraBackward) return StageId::LoraProduct;
    if (trainingStage == StageId::FfnGateUpBackward) return StageId::FfnGate;  // ffn_up stands beside it
    std::string_view key = stageInfo(trainingStage).key;
    key.remove_suffix(std::string_view("_backward").size());
    return findStage(key)->id;
}

// LoRA's products are not on the map: their backward stands in the first row of the block's
// attention column, the one backward slot of the block no arrow runs through.
StageId mapRowOf(StageId trainingStage) {
    return trainingStage == StageId::LoraBackward ? StageId::Transposes : forwardStageOf(trainingStage);
}

int forwardMapColumns() { return int(kColumnStarts.size()) + 1; }
float forwardMapColumnWidth() { return kColumnWidth; }
// A map with a backward part keeps the gap right of its last column: the gradient into a band
// above runs up the gap right of its target's column.
float forwardMapWidth(int columnsPerBand, bool backward) {
    return 2 * kLeft + float(columnsPerBand) * columnPitch(backward) - (backward ? 0.0f : kColumnGap);
}

ForwardMap buildForwardMap(int layers, MapLayout layout) {
    ForwardMap map;
    map.layers = layers;
    map.columnsPerBand = layout.columnsPerBand;
    map.laneShapeRows = layout.laneShapeRows;
    map.backward = layout.backward;
    map.lora = layout.backward && layout.lora;
    const float pitch = columnPitch(layout.backward);
    std::vector<int> rowsIn(1, 0);
    std::vector<int> flow;  // the boxes the next stage takes its input from
    std::vector<std::pair<int, std::string_view>> joining;  // beside boxes and the box their result joins
    auto place = [&](MapBox b, int slot, int slots) {
        float lane = (kColumnWidth - kLaneGap * float(slots - 1)) / float(slots);
        b.x = kLeft + float(b.column) * pitch + (b.backward ? kColumnWidth + kBackwardGap : float(slot) * (lane + kLaneGap));
        b.y = kTop + float(b.row) * kRowHeight;
        b.w = lane, b.h = kBoxHeight;
        map.boxes.push_back(std::move(b));
        return int(map.boxes.size()) - 1;
    };
    int gradientFrom = -1;  // the backward box whose gradient the next one takes
    for (const StageInfo& s : stageCatalog()) {
        if (mapOmits(s.id, layout.backward, layout.lora)) continue;
        const std::string key(s.key);
        if (isTrainingStage(s.id)) {  // in the row of the stage it differentiates, its column's backward part
            const MapBox& of = map.boxes[size_t(map.findStage(mapRowOf(s.id)))];
            MapBox b;
            b.stage = s.id, b.key = key, b.title = std::string(s.title), b.number = s.number, b.inBlock = s.inBlock, b.backward = true;
            b.column = of.column, b.row = of.row;
            b.tensor = firstGradient(recordNames(s.records));
            b.label = backwardLabel(s.key, of.label);
            const int id = place(b, 0, 1);
            // An adapter's A and B are leaves, as the weights are: the flow does not go through them.
            if (s.id == StageId::LoraBackward) continue;
            if (gradientFrom >= 0) map.arrows.push_back({gradientFrom, id, "", false});
            gradientFrom = id;
            continue;
        }
        if (std::find(kColumnStarts.begin(), kColumnStarts.end(), s.key) != kColumnStarts.end()) rowsIn.push_back(0);
        MapBox b;
        b.stage = s.id, b.key = key, b.title = std::string(s.title), b.number = s.number, b.inBlock = s.inBlock;
        b.column = int(rowsIn.size()) - 1;
        auto names = recordNames(s.records);
        b.tensor = names.empty() ? "" : names[0];
        auto label = kLabels.find(s.key);
        b.label = std::string(label != kLabels.end() ? label->second : s.title);

        if (s.id == StageId::QKV) {  // the three parallel tasks, side by side
            b.row = rowsIn.back()++;
            if (layout.laneShapeRows) rowsIn.back()++;  // their shapes, one under another, before split heads
            std::vector<int> lanes;
            for (size_t i = 0; i < names.size(); ++i) {
                MapBox lane = b;
                lane.key = key + "." + names[i];
                lane.tensor = names[i];
                auto l = kLaneLabels.find(names[i]);
                lane.label = l != kLaneLabels.end() ? std::string(l->second) : names[i];
                int id = place(lane, int(i), int(names.size()));
                for (int f : flow) map.arrows.push_back({f, id, "", false});
                lanes.push_back(id);
            }
            flow = lanes;
            continue;
        }
        auto beside = kBeside.find(s.key);
        if (beside != kBeside.end()) {
            int other = map.find(beside->second.of);
            b.row = map.boxes[size_t(other)].row;
            int id = place(b, 1, 2);
            // Re-lay the box it stands beside into the row's first half.
            MapBox& o = map.boxes[size_t(other)];
            o.w = map.boxes[size_t(id)].w;
            for (const auto& a : map.arrows)
                if (a.to == other && !a.side) map.arrows.push_back({a.from, id, "", false});
            if (!beside->second.joins.empty()) joining.push_back({id, beside->second.joins});
            continue;
        }
        b.row = rowsIn.back()++;
        int id = place(b, 0, 1);
        for (const auto& [from, joins] : joining)
            if (joins == s.key) map.arrows.push_back({from, id, "", false});
        if (std::find(kOffFlow.begin(), kOffFlow.end(), s.key) == kOffFlow.end()) {
            for (int f : flow) map.arrows.push_back({f, id, "", false});
            flow = {id};
        }
    }
    // Side inputs, by key, once every box is placed.
    for (const auto& [from, tos] : kSideInputs)
        for (auto to : tos) {
            auto t = kSideTensor.find(from);
            map.arrows.push_back({map.find(from), map.find(to), t != kSideTensor.end() ? std::string(t->second) : "", true});
        }
    for (auto& a : map.arrows)
        if (a.tensor.empty()) a.tensor = carried(map.boxes[size_t(a.from)], map.boxes[size_t(a.to)]);

    // Bands: column c is drawn in band c / perBand, at place c % perBand; a band is as tall as its
    // deepest column.
    const int columns = int(rowsIn.size());
    const int perBand = layout.columnsPerBand > 0 ? std::min(layout.columnsPerBand, columns) : columns;
    const int bands = (columns + perBand - 1) / perBand;
    auto columnX = [&](int c) { return kLeft + float(c) * pitch; };
    const float columnW = pitch - kColumnGap;  // its forward and backward parts
    std::vector<float> bandTop(size_t(bands), kTop);
    std::vector<int> bandRows(size_t(bands), 0);
    for (int c = 0; c < columns; ++c) bandRows[size_t(c / perBand)] = std::max(bandRows[size_t(c / perBand)], rowsIn[size_t(c)]);
    for (int k = 1; k < bands; ++k) bandTop[size_t(k)] = bandTop[size_t(k - 1)] + float(bandRows[size_t(k - 1)]) * kRowHeight + kBandGap;
    for (auto& b : map.boxes) {
        b.band = b.column / perBand;
        b.x += columnX(b.column % perBand) - columnX(b.column);
        b.y += bandTop[size_t(b.band)] - kTop;
    }
    map.height = bandTop.back() + float(bandRows.back()) * kRowHeight;
    map.width = forwardMapWidth(perBand, layout.backward);

    // Sections: the columns before and after the blocks, and a frame around the block's columns
    // (one a band it spans, the first with the layer tabs).
    const float pad = 0.3f;
    auto frame = [&](std::string title, bool block, int first, int last) {
        const int band = first / perBand;
        const float top = bandTop[size_t(band)], bottom = top + float(bandRows[size_t(band)]) * kRowHeight;
        map.sections.push_back({std::move(title), band, block, columnX(first % perBand) - pad, top - pad,
                                columnX(last % perBand) + columnW - columnX(first % perBand) + 2 * pad, bottom - top + pad});
    };
    int firstBlock = columns, lastBlock = -1;
    for (const auto& b : map.boxes)
        if (b.inBlock && !b.backward) firstBlock = std::min(firstBlock, b.column), lastBlock = std::max(lastBlock, b.column);
    frame("Before the blocks", false, 0, 0);
    for (int c = firstBlock; c <= lastBlock; c = (c / perBand + 1) * perBand)
        frame(c == firstBlock ? "Transformer block" : "block, cont.", c == firstBlock, c, std::min(lastBlock, (c / perBand + 1) * perBand - 1));
    frame("Output", false, columns - 1, columns - 1);
    for (auto& a : map.arrows) a.route = routeArrow(map, a);
    return map;
}

Panel panelFor(StageId stage) {
    switch (stage) {
        case StageId::Tokenize:
        case StageId::TokensTensor:
        case StageId::SequenceLoop: return Panel::Tokens;
        case StageId::Mask: return Panel::Mask;
        case StageId::ScoresMatMul:
        case StageId::ScoresScale:
        case StageId::ScoresMask:
        case StageId::ScoresSoftmax: return Panel::Attention;
        case StageId::CacheWrite:
        case StageId::CacheRead:
        case StageId::RepeatKV: return Panel::KvCache;
        case StageId::FfnResidual: return Panel::Lens;
        case StageId::Logits:
        case StageId::Sample: return Panel::Logits;
        default: return Panel::Heatmap;
    }
}

bool recordSkipped(const StageRecord& r) {
    // An F32 run's softmax uses the stage's other wording (no BF16 conversions), but the softmax
    // itself ran: the map draws it as run.
    if (r.stage == StageId::ScoresSoftmax) return false;
    // A trace does not store the engine's flag; its message is the catalog's skipped wording.
    std::string_view skipped = r.info().skipped;
    if (skipped.empty()) return false;
    std::string_view fixed = skipped.substr(0, skipped.find('{'));
    return !fixed.empty() && std::string_view(r.message).starts_with(fixed);
}

ForwardMapView viewForwardMap(const ForwardMap& map, const std::vector<std::shared_ptr<const StageRecord>>& records,
                              const StageRecord* current, int layer) {
    ForwardMapView v;
    v.step = current ? current->step : 0;
    v.currentLayer = current ? current->layer : -1;
    v.layer = layer >= 0 ? layer : std::max(0, v.currentLayer);
    std::vector<int> recordOf(map.boxes.size(), -1);
    v.boxes.resize(map.boxes.size());
    for (size_t i = 0; i < map.boxes.size(); ++i) {
        const MapBox& b = map.boxes[i];
        const StageRecord* r = findRecord(records, v.step, b.inBlock ? v.layer : -1, b.stage);
        // A stage at the shown layer after the engine's position has no record yet.
        if (!r || (current && r->index > current->index)) continue;
        recordOf[i] = r->index;
        MapBoxView& bv = v.boxes[i];
        bv.record = r->index;
        bv.state = recordSkipped(*r) ? BoxState::Skipped : current && r->index == current->index ? BoxState::Current : BoxState::Ran;
    }
    // A skipped layer (--skip-layer) marks only its block input; nothing inside it ran.
    const int block = map.find(stageInfo(StageId::BlockForward).key);
    if (block >= 0 && v.boxes[size_t(block)].state == BoxState::Skipped)
        for (size_t i = 0; i < map.boxes.size(); ++i)
            if (map.boxes[i].inBlock && recordOf[i] < 0) v.boxes[i].state = BoxState::Skipped;
    for (size_t i = 0; i < map.boxes.size(); ++i)
        if (recordOf[i] >= 0) v.boxes[i].shape = reshapeText(map, int(i), *records[size_t(recordOf[i])], recordOf, records);
    v.arrows.resize(map.arrows.size());
    for (size_t i = 0; i < map.arrows.size(); ++i) {
        const MapArrow& a = map.arrows[i];
        if (recordOf[size_t(a.from)] < 0) continue;
        const CapturedTensor* t = findTensor(*records[size_t(recordOf[size_t(a.from)])], a.tensor);
        if (t) v.arrows[i].shape = a.tensor + " " + shapeToString(t->shape);
    }
    return v;
}

}  // namespace llama::viewer
