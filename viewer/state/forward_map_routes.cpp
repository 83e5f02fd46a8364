// The map's arrows as paths between the placed boxes (state/forward_map.h): the flow down a column
// into the next box's top, across the gap into the next column or down into a lower band, and the
// side inputs and the residual stream into a box's left side. In map units, so the Map panel only
// scales and draws them and a test can check that no arrow runs behind a box.
#include <algorithm>

#include "state/forward_map.h"

namespace llama::viewer {

namespace {
constexpr float kColumnGapMid = 0.55f;      // right of a column: where an arrow into the next column runs up
constexpr float kResidualGap = 0.275f;      // right of a column: where the residual stream runs down
constexpr float kUnderColumn = 0.2f;        // under a box: where an arrow into the next column runs along
constexpr float kOverBox = 0.22f;           // over a box: where an arrow from its side turns down into it
constexpr float kOverBand = 0.95f;          // over a band's first row: where arrows from the band above run along
constexpr float kResidualOverBand = 0.8f;   // the residual stream's way along that gap, under the flow's
constexpr float kColumnEdge = 0.15f;        // beside a column: the residual stream into a lower band, a join around boxes
constexpr float kStub = 0.45f;              // a side input's stub
constexpr float kBackwardLane = 0.825f;     // right of a column: where a gradient into it runs
constexpr float kOverBackward = 0.12f;      // over a backward box: where a gradient out of it turns
constexpr float kBackwardOverBand = 1.08f;  // over a band's first row: where a gradient into the band above runs along

float boxMiddleX(const MapBox& b) { return b.x + b.w / 2; }
float boxMiddleY(const MapBox& b) { return b.y + b.h / 2; }
float boxBottom(const MapBox& b) { return b.y + b.h; }

// The top of a band: its first row's boxes.
float firstRowTop(const ForwardMap& map, int band) {
    float top = map.height;
    for (const MapBox& b : map.boxes)
        if (b.band == band) top = std::min(top, b.y);
    return top;
}

// The right edge of a box's column: of its backward part, where it has one.
float columnRight(const ForwardMap& map, const MapBox& of) {
    float right = of.x + of.w;
    for (const MapBox& b : map.boxes)
        if (b.column == of.column) right = std::max(right, b.x + b.w);
    return right;
}

// Whether a box of their column stands between `f` and `t` where an arrow down from one to the other runs.
bool boxesBetween(const ForwardMap& map, const MapBox& f, const MapBox& t) {
    const float left = std::min(boxMiddleX(f), boxMiddleX(t)), right = std::max(boxMiddleX(f), boxMiddleX(t));
    for (const MapBox& b : map.boxes)
        if (b.column == f.column && b.y >= boxBottom(f) && boxBottom(b) <= t.y && b.x <= right && b.x + b.w >= left) return true;
    return false;
}
}  // namespace

MapRoute routeArrow(const ForwardMap& map, const MapArrow& arrow) {
    const MapBox &f = map.boxes[size_t(arrow.from)], &t = map.boxes[size_t(arrow.to)];
    if (arrow.side) {
        // A side input prepared before the blocks (RoPE angles, the mask) is used in every layer: a
        // stub into the box, named after it, rather than a line from the first column (in a narrow
        // layout's first column, as long as the margin left of the box).
        if (f.column == t.column || f.column == 0)
            return {RouteKind::SideInput, {{std::max(0.0f, t.x - kStub), boxMiddleY(t)}, {t.x, boxMiddleY(t)}}};
        const float gx = columnRight(map, f) + kResidualGap;
        if (t.band > f.band) {
            // From a band above: along the gap over `to`'s band, then down the left edge of its column.
            const float y = firstRowTop(map, t.band) - kResidualOverBand, x = t.x - kColumnEdge;
            return {RouteKind::Residual,
                    {{f.x + f.w, boxMiddleY(f)}, {gx, boxMiddleY(f)}, {gx, y}, {x, y}, {x, boxMiddleY(t)}, {t.x, boxMiddleY(t)}}};
        }
        return {RouteKind::Residual, {{f.x + f.w, boxMiddleY(f)}, {gx, boxMiddleY(f)}, {gx, boxMiddleY(t)}, {t.x, boxMiddleY(t)}}};
    }
    if (f.backward) {
        // The gradient flows up: to the stage above in its column; or out over its box, along the
        // gap right of the column before, into that box's right side; or, into a band above, out
        // of its right side, up the gap right of its column (clear of the block's layer tabs) and
        // along the gap over its band to the gap right of the target's column.
        const MapPoint top{boxMiddleX(f), f.y};
        if (f.column == t.column) return {RouteKind::Up, {top, {boxMiddleX(t), boxBottom(t)}}};
        const float gx = columnRight(map, t) + kBackwardLane;
        const MapPoint into{t.x + t.w, boxMiddleY(t)};
        if (t.band == f.band) {
            const float y = f.y - kOverBackward;
            return {RouteKind::BackAcross, {top, {top.x, y}, {gx, y}, {gx, into.y}, into}};
        }
        const float fx = columnRight(map, f) + kBackwardLane, y = firstRowTop(map, f.band) - kBackwardOverBand;
        std::vector<MapPoint> points = {{f.x + f.w, boxMiddleY(f)}, {fx, boxMiddleY(f)}, {fx, y}};
        if (gx != fx) points.push_back({gx, y});
        points.push_back({gx, into.y});
        points.push_back(into);
        return {RouteKind::BackAcross, points};
    }
    const MapPoint start{boxMiddleX(f), boxBottom(f)}, end{boxMiddleX(t), t.y};
    if (f.column == t.column && boxesBetween(map, f, t)) {
        // Around the boxes between (SiLU between up and SiLU(gate) x up), beside the column.
        const float x = f.x + f.w + kColumnEdge;
        return {RouteKind::Join, {{f.x + f.w, boxMiddleY(f)}, {x, boxMiddleY(f)}, {x, boxMiddleY(t)}, {t.x + t.w, boxMiddleY(t)}}};
    }
    if (f.column == t.column) {
        // Q, K and V turn under the row their shapes are written in, each shape on a line of its own.
        const bool lane = f.key.starts_with("qkv.") && map.laneShapeRows;
        const RouteKind kind = lane ? RouteKind::Lane : RouteKind::Down;
        if (start.x == end.x) return {kind, {start, end}};
        const float y = lane ? t.y - kOverBox : (start.y + end.y) / 2;
        return {kind, {start, {start.x, y}, {end.x, y}, end}};
    }
    if (t.band > f.band) {
        // Into the next band: down to the gap over it, along it, down into `to`'s top.
        const float y = firstRowTop(map, t.band) - kOverBand;
        return {RouteKind::Across, {start, {start.x, y}, {end.x, y}, end}};
    }
    // To the next column's top: down, along under `from`, up the gap between the columns, in.
    const float under = boxBottom(f) + kUnderColumn, gx = t.x - kColumnGapMid, over = t.y - kOverBox;
    return {RouteKind::Across, {start, {start.x, under}, {gx, under}, {gx, over}, {end.x, over}, end}};
}

}  // namespace llama::viewer
