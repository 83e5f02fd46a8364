// The forward map's arrow routes (routeArrow): in every layout (one row of columns, or wrapped into
// bands of 3, 2 or 1) each arrow leaves its box at an edge, runs in horizontal and vertical
// segments through the gaps, never behind a box, and enters its target at an edge: the flow from
// above into the top, side inputs and the residual stream from the left into the side; in a
// training step's map, each gradient up into its box's bottom or, from the next column, into its right side.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "state/forward_map.h"

using namespace llama::viewer;

namespace {
constexpr float kEps = 1e-4f;

bool near(float a, float b) { return std::abs(a - b) < kEps; }

// Whether [lo, hi] (a point when lo == hi) reaches inside the open interval (a, b).
bool reachesInside(float lo, float hi, float a, float b) { return std::min(hi, b) - std::max(lo, a) > kEps || (lo > a + kEps && hi < b - kEps); }

// Whether the segment p-q (horizontal or vertical) runs through the inside of `box`: along or up to
// its edge is not through.
bool through(MapPoint p, MapPoint q, const MapBox& box) {
    return reachesInside(std::min(p.x, q.x), std::max(p.x, q.x), box.x, box.x + box.w) &&
           reachesInside(std::min(p.y, q.y), std::max(p.y, q.y), box.y, box.y + box.h);
}

bool onEdge(MapPoint p, const MapBox& b) {
    const bool inX = p.x >= b.x - kEps && p.x <= b.x + b.w + kEps, inY = p.y >= b.y - kEps && p.y <= b.y + b.h + kEps;
    return (inX && (near(p.y, b.y) || near(p.y, b.y + b.h))) || (inY && (near(p.x, b.x) || near(p.x, b.x + b.w)));
}

std::vector<ForwardMap> layouts() {
    std::vector<ForwardMap> maps;
    for (bool backward : {false, true})
        for (bool lanes : {false, true})
            for (int perBand : {0, 3, 2, 1}) {
                maps.push_back(buildForwardMap(8, {perBand, lanes, backward}));
                if (backward) maps.push_back(buildForwardMap(8, {perBand, lanes, true, true}));  // a LoRA step's
            }
    return maps;
}

std::string name(const ForwardMap& map, const MapArrow& a) {
    return map.boxes[size_t(a.from)].key + " -> " + map.boxes[size_t(a.to)].key;
}
}  // namespace

TEST_CASE("every map arrow runs in square segments from an edge of its box to an edge of its target, inside the map") {
    for (const ForwardMap& map : layouts())
        for (const MapArrow& a : map.arrows) {
            INFO(name(map, a) << ", " << map.columnsPerBand << " columns a band");
            const auto& p = a.route.points;
            REQUIRE(p.size() >= 2);
            for (size_t i = 1; i < p.size(); ++i) CHECK((near(p[i - 1].x, p[i].x) || near(p[i - 1].y, p[i].y)));
            for (const MapPoint& q : p) CHECK((q.x >= 0 && q.x <= map.width && q.y >= 0 && q.y <= map.height));
            const MapBox &f = map.boxes[size_t(a.from)], &t = map.boxes[size_t(a.to)];
            CHECK(onEdge(p.back(), t));
            // A side input is a stub named after its box (prepared once, before the blocks); every
            // other arrow starts at its box.
            if (a.route.kind == RouteKind::SideInput) CHECK(p.front().x < t.x);
            else CHECK(onEdge(p.front(), f));
        }
}

TEST_CASE("the flow enters a box from above, side inputs and the residual stream from its left, gradients from below or its right") {
    for (const ForwardMap& map : layouts())
        for (const MapArrow& a : map.arrows) {
            INFO(name(map, a) << ", " << map.columnsPerBand << " columns a band");
            const MapBox& t = map.boxes[size_t(a.to)];
            const MapPoint last = a.route.points.back(), before = a.route.points[a.route.points.size() - 2];
            CHECK(a.side == (a.route.kind == RouteKind::SideInput || a.route.kind == RouteKind::Residual));
            if (a.side) {
                CHECK((near(last.x, t.x) && near(last.y, t.y + t.h / 2) && before.x < last.x && near(before.y, last.y)));
            } else if (a.route.kind == RouteKind::Join || a.route.kind == RouteKind::BackAcross) {
                CHECK((near(last.x, t.x + t.w) && before.x > last.x && near(before.y, last.y)));
            } else if (a.route.kind == RouteKind::Up) {  // a gradient, up into the box's bottom
                CHECK((near(last.y, t.y + t.h) && before.y > last.y && near(before.x, last.x)));
            } else {
                CHECK((near(last.y, t.y) && before.y < last.y && near(before.x, last.x)));
            }
        }
}

TEST_CASE("no map arrow runs behind a box") {
    for (const ForwardMap& map : layouts())
        for (const MapArrow& a : map.arrows)
            for (size_t i = 1; i < a.route.points.size(); ++i)
                for (const MapBox& b : map.boxes) {
                    INFO(name(map, a) << " behind " << b.key << ", " << map.columnsPerBand << " columns a band, segment " << i);
                    CHECK_FALSE(through(a.route.points[i - 1], a.route.points[i], b));
                }
}

TEST_CASE("the map's arrows take the route their boxes' places call for") {
    const ForwardMap map = buildForwardMap(8, {0, true});
    auto kind = [&](std::string_view from, std::string_view to) {
        for (const MapArrow& a : map.arrows)
            if (map.boxes[size_t(a.from)].key == from && map.boxes[size_t(a.to)].key == to) return a.route.kind;
        FAIL("no arrow " << from << " -> " << to);
        return RouteKind::Down;
    };
    CHECK(kind("attention_norm", "attention") == RouteKind::Down);
    CHECK(kind("qkv.xk", "reshape_heads") == RouteKind::Lane);
    CHECK(kind("attention", "qkv.xq") == RouteKind::Down);  // into a lane: the flow's elbow
    CHECK(kind("mask", "scores_mask") == RouteKind::SideInput);
    CHECK(kind("freqs_cis", "rotary") == RouteKind::SideInput);
    CHECK(kind("block", "attention_residual") == RouteKind::Residual);
    CHECK(kind("ffn_up", "ffn_multiply") == RouteKind::Join);  // SiLU stands between them
    CHECK(kind("ffn_silu", "ffn_multiply") == RouteKind::Down);
    CHECK(kind("ffn_residual", "output_norm") == RouteKind::Across);
    // Without rows for Q, K and V's shapes the lanes are drawn as the rest of the flow.
    const ForwardMap tight = buildForwardMap(8, {0, false});
    for (const MapArrow& a : tight.arrows) CHECK(a.route.kind != RouteKind::Lane);
}

TEST_CASE("a training step's map: each backward stage beside the forward stage it differentiates, the gradient flowing from the loss to the embedding, LoRA's off the chain") {
    for (int perBand : {0, 3, 1}) {
        const ForwardMap map = buildForwardMap(8, {perBand, true, true, true});
        INFO(perBand << " columns a band");
        int backward = 0;
        for (const MapBox& b : map.boxes) {
            if (!b.backward) continue;
            ++backward;
            INFO(b.key);
            REQUIRE(map.findStage(mapRowOf(b.stage)) >= 0);
            const MapBox& of = map.boxes[size_t(map.findStage(mapRowOf(b.stage)))];
            // In its row, right of every forward box of its column.
            CHECK((b.row == of.row && b.column == of.column && near(b.y, of.y)));
            for (const MapBox& f : map.boxes)
                if (!f.backward && f.column == b.column) CHECK(b.x > f.x + f.w);
        }
        CHECK(backward == 19);  // the loss, 17 backward stages on the chain and, a LoRA step's, the adapters'
        // A step without adapters has no LoRA box: every box of its map lights.
        CHECK(buildForwardMap(8, {perBand, true, true}).find("lora_backward") < 0);
        // LoRA's backward stands in the attention column's first row, off the chain: an adapter's A
        // and B are leaves, as the weights are, and the gradient flows past them.
        // It differentiates the adapter's product (the heatmap names that stage), not the stage whose row it borrows.
        CHECK(forwardStageOf(llama::StageId::LoraBackward) == llama::StageId::LoraProduct);
        const int lora = map.find("lora_backward");
        REQUIRE(lora >= 0);
        CHECK(map.boxes[size_t(lora)].label == "\u2202 LoRA A, B");
        CHECK(map.boxes[size_t(lora)].row == map.boxes[size_t(map.find("transposes"))].row);
        CHECK(map.boxes[size_t(lora)].column == map.boxes[size_t(map.find("transposes"))].column);
        for (const MapArrow& a : map.arrows) CHECK((a.from != lora && a.to != lora));
        // One chain from the loss to the embedding's gradient, in the catalog's order.
        int at = map.find("loss"), links = 0;
        while (true) {
            int next = -1;
            for (const MapArrow& a : map.arrows)
                if (a.from == at && map.boxes[size_t(a.to)].backward) next = a.to;
            if (next < 0) break;
            at = next, ++links;
        }
        CHECK(map.boxes[size_t(at)].key == "input_embeddings_backward");
        CHECK(links == 17);
        // Without a backward column the map has no backward box.
        for (const MapBox& b : buildForwardMap(8, {perBand, true}).boxes) CHECK_FALSE(b.backward);
    }
}
