// The forward-pass map: its boxes are the stage catalog's, laid out without overlaps, and after a
// run on the synthetic "tiny" model (dim 64, 4 heads of 16, 2 KV heads) its arrows carry the
// captured tensors' shapes, the shown stage is lit and skipped stages are drawn as skipped.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <set>

#include "state/engine_session.h"
#include "state/forward_map.h"
#include "session_run.h"

using namespace llama;
using namespace llama::viewer;
using namespace std::chrono_literals;

namespace {
HistorySnapshot runTiny(RunSettings settings) {
    EngineSession session;
    session.load({{ModelSource::Kind::Synthetic, "tiny", 7}});
    REQUIRE(session.waitUntilSettled(60s));
    return runToEnd(session, settings);
}

RunSettings twoWords() {
    RunSettings s;
    s.prompt = "hello world";
    s.mode = PromptMode::Completion;
    s.maxTokens = 2;
    return s;
}

const MapArrow& arrow(const ForwardMap& map, std::string_view from, std::string_view to, size_t* index = nullptr) {
    for (size_t i = 0; i < map.arrows.size(); ++i)
        if (map.boxes[size_t(map.arrows[i].from)].key == from && map.boxes[size_t(map.arrows[i].to)].key == to) {
            if (index) *index = i;
            return map.arrows[i];
        }
    FAIL("no arrow " << from << " -> " << to);
    throw;
}
}  // namespace

TEST_CASE("the forward map has one box per catalog stage, Q/K/V and gate/up side by side") {
    ForwardMap map = buildForwardMap(22);
    CHECK(map.layers == 22);
    std::set<std::string> keys;
    for (const auto& b : map.boxes) keys.insert(b.key.substr(0, b.key.find('.')));
    for (const StageInfo& s : stageCatalog()) CHECK(keys.count(std::string(s.key)) == (mapOmits(s.id) ? 0u : 1u));
    for (const auto& b : map.boxes) CHECK(findStage(b.key.substr(0, b.key.find('.'))) != nullptr);

    const MapBox &q = map.boxes[size_t(map.find("qkv.xq"))], &k = map.boxes[size_t(map.find("qkv.xk"))],
                 &v = map.boxes[size_t(map.find("qkv.xv"))];
    CHECK((q.row == k.row && k.row == v.row && q.x < k.x && k.x < v.x));
    const MapBox &gate = map.boxes[size_t(map.find("ffn_gate"))], &up = map.boxes[size_t(map.find("ffn_up"))];
    CHECK((gate.row == up.row && gate.x < up.x));
    // Each of the three tasks takes the normalized x; gate and up both take normalizedH.
    for (auto lane : {"qkv.xq", "qkv.xk", "qkv.xv"}) {
        arrow(map, "attention", lane);
        arrow(map, lane, "reshape_heads");
    }
    arrow(map, "ffn_forward", "ffn_gate");
    arrow(map, "ffn_forward", "ffn_up");
    arrow(map, "ffn_up", "ffn_multiply");
    arrow(map, "ffn_silu", "ffn_multiply");
    CHECK(arrow(map, "block", "attention_residual").side);

    // No two boxes overlap, and all lie inside the map.
    for (size_t i = 0; i < map.boxes.size(); ++i) {
        const MapBox& a = map.boxes[i];
        CHECK((a.x >= 0 && a.y >= 0 && a.x + a.w <= map.width + 1e-4f && a.y + a.h <= map.height + 1e-4f));
        for (size_t j = i + 1; j < map.boxes.size(); ++j) {
            const MapBox& b = map.boxes[j];
            bool apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
            INFO(a.key << " and " << b.key);
            CHECK(apart);
        }
    }
}


TEST_CASE("a narrow window's map wraps its columns into bands, the same boxes and arrows, none overlapping") {
    const ForwardMap wide = buildForwardMap(8);
    for (int perBand : {3, 2, 1}) {
        INFO(perBand << " columns a band");
        const ForwardMap map = buildForwardMap(8, {perBand, true});
        CHECK(map.width == Approx(forwardMapWidth(perBand)));
        CHECK(map.width < wide.width);
        REQUIRE(map.boxes.size() == wide.boxes.size());
        REQUIRE(map.arrows.size() == wide.arrows.size());
        for (size_t i = 0; i < map.boxes.size(); ++i) {
            const MapBox &a = map.boxes[i], &w = wide.boxes[i];
            CHECK((a.key == w.key && a.column == w.column && a.band == a.column / perBand));
            CHECK((a.x >= 0 && a.y >= 0 && a.x + a.w <= map.width + 1e-4f && a.y + a.h <= map.height + 1e-4f));
            for (size_t j = i + 1; j < map.boxes.size(); ++j) {
                const MapBox& b = map.boxes[j];
                INFO(a.key << " and " << b.key);
                CHECK((a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y));
            }
            // A later band lies wholly below an earlier one.
            for (const MapBox& b : map.boxes)
                if (b.band > a.band) CHECK(b.y > a.y + a.h);
        }
        for (size_t i = 0; i < map.arrows.size(); ++i) CHECK((map.arrows[i].from == wide.arrows[i].from && map.arrows[i].to == wide.arrows[i].to));
        // The block's frame is split where its columns wrap: its first part carries the layer tabs.
        int blockFrames = 0, tabbed = 0;
        for (const auto& sec : map.sections) {
            blockFrames += sec.title == "Transformer block" || sec.title == "block, cont.";
            tabbed += sec.block;
        }
        CHECK(tabbed == 1);
        CHECK(blockFrames == (perBand == 1 ? 3 : 2));  // the block's columns 1-3 over bands of 3, 2 and 1 columns
    }
    // Room for Q, K and V's shapes: one more row under the three tasks.
    const ForwardMap roomy = buildForwardMap(8, {0, true});
    const MapBox &q = roomy.boxes[size_t(roomy.find("qkv.xq"))], &split = roomy.boxes[size_t(roomy.find("reshape_heads"))];
    CHECK(split.row == q.row + 2);
}
TEST_CASE("the forward map's arrows carry the captured shapes at the shown step and layer") {
    HistorySnapshot snap = runTiny(twoWords());
    ForwardMap map = buildForwardMap(2);
    // The prefill's softmax in layer 1 (0-based).
    const StageRecord* softmax = findRecord(snap.records, 0, 1, StageId::ScoresSoftmax);
    REQUIRE(softmax);
    ForwardMapView view = viewForwardMap(map, snap.records, softmax, -1);
    CHECK(view.layer == 1);
    CHECK(view.boxes[size_t(map.find("scores_softmax"))].state == BoxState::Current);
    CHECK(view.boxes[size_t(map.find("scores_scale"))].state == BoxState::Ran);
    CHECK(view.boxes[size_t(map.find("ffn_down"))].state == BoxState::NotYet);  // after the shown stage
    CHECK(view.boxes[size_t(map.find("sample"))].state == BoxState::NotYet);

    const StageRecord* qkv = findRecord(snap.records, 0, 1, StageId::QKV);
    const StageRecord* heads = findRecord(snap.records, 0, 1, StageId::ReshapeHeads);
    REQUIRE((qkv && heads));
    const int64_t seq = qkv->find("xq")->shape[0];
    CHECK(size_t(seq) == snap.promptTokens.size());
    // Every arrow out of a stage that ran carries its recorded tensor, by name and shape.
    for (size_t i = 0; i < map.arrows.size(); ++i) {
        const MapArrow& a = map.arrows[i];
        const MapBoxView& from = view.boxes[size_t(a.from)];
        if (from.record < 0) {
            CHECK(view.arrows[i].shape.empty());
            continue;
        }
        const StageRecord& r = *snap.records[size_t(from.record)];
        const CapturedTensor* t = a.tensor.empty() ? nullptr : r.find(a.tensor);
        INFO(map.boxes[size_t(a.from)].key << " -> " << map.boxes[size_t(a.to)].key);
        if (!t) {
            CHECK(view.arrows[i].shape.empty());
            continue;
        }
        CHECK(view.arrows[i].shape == a.tensor + " " + shapeToString(t->shape));
    }
    // The tiny model's shapes, from its arguments: dim 64, 4 query heads and 2 KV heads of 16.
    size_t qArrow = 0;
    arrow(map, "qkv.xq", "reshape_heads", &qArrow);
    CHECK(view.arrows[qArrow].shape == fmt::format("xq [{} 64]", seq));
    CHECK(view.boxes[size_t(map.find("reshape_heads"))].shape == fmt::format("[{} 64] -> [{} 4 16]", seq, seq));
    size_t kArrow = 0;
    arrow(map, "qkv.xk", "reshape_heads", &kArrow);
    CHECK(view.arrows[kArrow].shape == fmt::format("xk [{} 32]", seq));

    // Another layer of the stack, chosen on the map: layer 0 ran completely before layer 1's softmax.
    ForwardMapView first = viewForwardMap(map, snap.records, softmax, 0);
    CHECK(first.boxes[size_t(map.find("ffn_residual"))].state == BoxState::Ran);
    CHECK(first.boxes[size_t(map.find("ffn_residual"))].record == findRecord(snap.records, 0, 0, StageId::FfnResidual)->index);
}

TEST_CASE("the forward map draws stages that did not run as skipped") {
    RunSettings settings = twoWords();
    settings.whatIf.noRope = true;
    settings.whatIf.skipLayers = {1};
    HistorySnapshot snap = runTiny(settings);
    ForwardMap map = buildForwardMap(2);
    const StageRecord* sample = findRecord(snap.records, 1, -1, StageId::Sample);
    REQUIRE(sample);
    ForwardMapView decode = viewForwardMap(map, snap.records, sample, 0);
    CHECK(decode.step == 1);
    CHECK(decode.boxes[size_t(map.find("rotary"))].state == BoxState::Skipped);
    CHECK(decode.boxes[size_t(map.find("scores_softmax"))].state == BoxState::Ran);
    CHECK(decode.boxes[size_t(map.find("sample"))].state == BoxState::Current);
    // The skipped layer: its block mark says so, and everything inside it is skipped too.
    ForwardMapView skippedLayer = viewForwardMap(map, snap.records, sample, 1);
    CHECK(skippedLayer.boxes[size_t(map.find("block"))].state == BoxState::Skipped);
    CHECK(skippedLayer.boxes[size_t(map.find("attention_norm"))].state == BoxState::Skipped);
    CHECK(skippedLayer.boxes[size_t(map.find("attention_norm"))].record == -1);
    CHECK(skippedLayer.boxes[size_t(map.find("output_norm"))].state == BoxState::Ran);
}
