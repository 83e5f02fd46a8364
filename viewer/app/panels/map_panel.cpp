// The forward pass as a map (state/forward_map.h): boxes from the stage catalog, scaled to the
// panel, the shown stage lit, the shown layer lit in the stack's tabs, each arrow labelled with
// the shape it carries at this step. A click on a box shows that stage and opens its panel; a
// click on a layer tab shows that layer of the stack.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <vector>

#include "panels.h"
#include "stages/numbering.h"
#include "state/forward_map.h"

namespace llama::viewer {

namespace {
constexpr ImU32 kRan = IM_COL32(58, 84, 128, 255), kNotYet = IM_COL32(44, 46, 54, 255), kCurrent = IM_COL32(240, 170, 40, 255),
                kSkippedFill = IM_COL32(36, 36, 40, 255), kBorder = IM_COL32(150, 160, 180, 255), kArrow = IM_COL32(170, 175, 190, 255),
                kResidual = IM_COL32(120, 190, 120, 255), kLabel = IM_COL32(200, 205, 215, 255), kDim = IM_COL32(120, 125, 135, 255),
                kRanBackward = IM_COL32(112, 72, 128, 255), kGradient = IM_COL32(205, 160, 225, 255);

void arrowHead(ImDrawList* dl, ImVec2 tip, ImVec2 dir, float size, ImU32 colour) {
    ImVec2 n(-dir.y, dir.x);
    dl->AddTriangleFilled(tip, ImVec2(tip.x - dir.x * size + n.x * size * 0.5f, tip.y - dir.y * size + n.y * size * 0.5f),
                          ImVec2(tip.x - dir.x * size - n.x * size * 0.5f, tip.y - dir.y * size - n.y * size * 0.5f), colour);
}

void smallText(ImDrawList* dl, ImVec2 at, ImU32 colour, const std::string& text, float size) {
    dl->AddText(ImGui::GetFont(), size, at, colour, text.c_str());
}

float smallWidth(const std::string& text, float size) { return ImGui::GetFont()->CalcTextSizeA(size, 1e9f, 0, text.c_str()).x; }

// `text` cut to `width` at `size` pixels: the tensor name goes first, then the end of the shape.
std::string fitSmall(const std::string& text, float width, float size) {
    if (smallWidth(text, size) <= width) return text;
    size_t space = text.find(' ');
    std::string shape = space == std::string::npos ? text : text.substr(space + 1);
    while (shape.size() > 1 && smallWidth(shape + "..", size) > width) shape.pop_back();
    return shape == (space == std::string::npos ? text : text.substr(space + 1)) ? shape : shape + "..";
}

// Where the map is drawn: its origin on screen, units to pixels, and the text sizes that fit its boxes.
struct MapCanvas {
    ImDrawList* dl;
    ImVec2 origin;
    float s;               // pixels per map unit
    float boxFont, small;  // a box's label, and an arrow's or a section's
    ImVec2 at(float x, float y) const { return ImVec2(origin.x + x * s, origin.y + y * s); }
};

// The sections; the block's frame is a stack of N (shadows behind it) with one tab per layer.
void drawSections(PanelContext& c, const ForwardMap& map, const ForwardMapView& view, const MapCanvas& cv, int layers) {
    for (const auto& sec : map.sections) {
        ImVec2 a = cv.at(sec.x, sec.y), b = cv.at(sec.x + sec.w, sec.y + sec.h);
        if (sec.block)
            for (int k = 2; k >= 1; --k)
                cv.dl->AddRect(ImVec2(a.x + k * 4, a.y - k * 4), ImVec2(b.x + k * 4, b.y - k * 4), kDim, 6);
        cv.dl->AddRect(a, b, kBorder, 6);
        // In a later band the arrow from the band above comes down into the first column's middle:
        // the title starts right of it.
        const float titleX = sec.band > 0 ? cv.at(sec.x + 0.3f + forwardMapColumnWidth() / 2, 0).x + 6 : a.x + 4;
        smallText(cv.dl, ImVec2(titleX, a.y - cv.small - 3), kLabel, sec.block ? fmt::format("{} (x {})", sec.title, layers) : sec.title, cv.small);
        if (sec.block && layers > 0) {
            // Layer tabs after the title, 1-based as the log counts them, thinned to fit; where even
            // every other one would be a sliver, the panel draws them as a row of buttons above the
            // map instead (next frame; with some slack, so the two do not take turns).
            float x0 = a.x + 8 + smallWidth(fmt::format("{} (x {})", sec.title, layers), cv.small) + 12, x1 = b.x;
            const float tabW = (x1 - x0) / float(layers), readableTab = smallWidth("00", cv.small) + 6;
            c.view.mapTabsOnBlock = tabW * (c.view.mapTabsOnBlock ? 2.0f : 1.6f) >= readableTab;
            c.view.mapLayerTabsReadable = !c.view.mapTabsOnBlock || tabW * 2 >= readableTab;
            if (!c.view.mapTabsOnBlock) continue;
            const int every = std::max(1, int(std::ceil(readableTab / std::max(1.0f, tabW))));
            for (int L = 0; L < layers; ++L) {
                ImVec2 ta(x0 + tabW * float(L), a.y - cv.small - 6), tb(x0 + tabW * float(L + 1) - 1, a.y - 2);
                bool shown = L == view.layer, live = L == view.currentLayer;
                cv.dl->AddRectFilled(ta, tb, shown ? kCurrent : live ? kRan : kNotYet, 2);
                if (L % every == 0 || shown) {
                    std::string n = std::to_string(layerNumber(L));
                    smallText(cv.dl, ImVec2((ta.x + tb.x - smallWidth(n, cv.small)) / 2, ta.y + 2), shown ? IM_COL32(20, 20, 20, 255) : kLabel, n, cv.small);
                }
                ImGui::SetCursorScreenPos(ta);
                ImGui::PushID(L);
                if (ImGui::InvisibleButton("layer", ImVec2(std::max(1.0f, tb.x - ta.x), tb.y - ta.y))) c.view.mapLayer = L;
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", layerLabel(L, layers).c_str());
                ImGui::PopID();
            }
        }
    }

}

// The stack's layers as a row of buttons (wrapped), where the block is too narrow for its tabs: the
// shown layer lit, the one computing outlined, a click shows that layer as a tab's does.
void layerButtons(PanelContext& c, const ForwardMapView& view, int layers) {
    ImGui::TextUnformatted("layer:");
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    for (int L = 0; L < layers; ++L) {
        const std::string n = std::to_string(layerNumber(L));
        ImGui::SameLine();
        if (ImGui::GetCursorScreenPos().x + ImGui::CalcTextSize(n.c_str()).x + ImGui::GetStyle().FramePadding.x * 2 > right) ImGui::NewLine();
        const bool shown = L == view.layer;
        if (shown) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::ColorConvertU32ToFloat4(kCurrent));
        if (shown) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.08f, 0.08f, 0.08f, 1));
        ImGui::PushID(L);
        if (ImGui::SmallButton(n.c_str())) c.view.mapLayer = L;
        ImGui::PopID();
        if (shown) ImGui::PopStyleColor(2);
        if (L == view.currentLayer && !shown) ImGui::GetWindowDrawList()->AddRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), kCurrent);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", layerLabel(L, layers).c_str());
    }
}

// A label on a patch of the panel's colour, so an arrow passing behind it does not cross its letters.
void haloText(const MapCanvas& cv, ImVec2 at, const std::string& text) {
    cv.dl->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + smallWidth(text, cv.small) + 2, at.y + cv.small + 1), ImGui::GetColorU32(ImGuiCol_ChildBg, 1.0f));
    smallText(cv.dl, at, kLabel, text, cv.small);
}

// An arrow along its route (state/forward_map_routes.cpp), its head pointing along the last segment.
void drawRoute(const MapCanvas& cv, const MapRoute& route, ImU32 colour, float thickness, float head) {
    std::vector<ImVec2> points;
    for (const MapPoint& p : route.points) points.push_back(cv.at(p.x, p.y));
    cv.dl->AddPolyline(points.data(), int(points.size()), colour, 0, thickness);
    const ImVec2 tip = points.back(), from = points[points.size() - 2];
    const float length = std::max(1e-3f, std::hypot(tip.x - from.x, tip.y - from.y));
    arrowHead(cv.dl, tip, ImVec2((tip.x - from.x) / length, (tip.y - from.y) / length), head, colour);
}

// A side input's stub is named after its box, left of the stub.
void labelSideInput(const MapCanvas& cv, const MapBox& from, const MapBox& to, ImVec2 start) {
    std::string name = fitSmall(from.label, cv.s * 1.0f, cv.small);
    ImVec2 at(start.x - smallWidth(name, cv.small) + cv.s * 0.4f, start.y - cv.small - 4);
    // No room left of the box (the map's first column in a narrow layout): above the box.
    if (at.x < cv.origin.x + 2) at = ImVec2(cv.origin.x + 2, cv.at(0, to.y).y - cv.small - 3);
    smallText(cv.dl, at, kResidual, name, cv.small);
}

// Q, K and V's shapes one a line, each right of its own arrow as far as the column allows.
// Returns the label drawn.
std::string labelLane(const MapCanvas& cv, const MapBox& f, const MapBox& t, ImVec2 p0, const std::string& label) {
    const int index = int((f.x - t.x) / (t.w / 3) + 0.01f);
    const float left = cv.at(t.x, 0).x, right = cv.at(t.x + t.w, 0).x;
    std::string l = fitSmall(label, right - left - 4, cv.small);
    const float x = std::max(left + 2, std::min(p0.x + 4, right - smallWidth(l, cv.small) - 2));
    haloText(cv, ImVec2(x, p0.y + 2 + float(index) * (cv.small + 3)), l);
    return l;
}

// Right of the arrow, light on the dark panel (legible projected); a shape wider than the column's
// right half moves left over the arrow, on a halo, to end at its edge. Returns the label drawn.
std::string labelDown(const MapCanvas& cv, const MapBox& f, const MapBox& t, ImVec2 p0, const std::string& label) {
    // A box in a lane beside another (gate beside up) keeps its label under itself: the wider box
    // below would let it run under its neighbour's, over that one's own label.
    const bool lane = f.w < t.w;
    const float left = cv.at(lane ? f.x : std::min(f.x, t.x), 0).x, right = cv.at(lane ? f.x + f.w : std::max(f.x + f.w, t.x + t.w), 0).x;
    std::string l = fitSmall(label, right - left - 4, cv.small);
    const float x = std::max(left + 2, std::min(p0.x + 4, right - smallWidth(l, cv.small)));
    if (x < p0.x + 4) haloText(cv, ImVec2(x, p0.y + 1), l);
    else smallText(cv.dl, ImVec2(x, p0.y + 1), kLabel, l, cv.small);
    // A shape cut to the column's width reads whole on hover.
    if (l != label && hoveringRect(ImVec2(left, p0.y), ImVec2(right, p0.y + cv.small + 2))) ImGui::SetTooltip("%s", label.c_str());
    return l;
}

// Under the box the arrow leaves, as wide as the box. Returns the label drawn.
std::string labelAcross(const MapCanvas& cv, const MapBox& f, const std::string& label) {
    const std::string l = fitSmall(label, f.w * cv.s, cv.small);
    const ImVec2 at = cv.at(f.x, f.y + f.h + 0.2f);
    smallText(cv.dl, ImVec2(at.x + 2, at.y + 1), kLabel, l, cv.small);
    return l;
}

// Arrows first, so boxes cover their ends. `laneShapesWhole` says whether Q/K/V's shapes were
// drawn whole (nullopt: none drawn), `cutShape` the first arrow's shape that was cut ("" when none).
void drawArrows(const ForwardMap& map, const ForwardMapView& view, const MapCanvas& cv, std::optional<bool>& laneShapesWhole, std::string& cutShape) {
    laneShapesWhole.reset();
    cutShape.clear();
    const float head = std::max(5.0f, cv.s * 0.12f);
    std::set<std::pair<int, std::string>> labelled;  // (box, shape) already written under a box
    for (size_t i = 0; i < map.arrows.size(); ++i) {
        const MapArrow& a = map.arrows[i];
        const MapBox &f = map.boxes[size_t(a.from)], &t = map.boxes[size_t(a.to)];
        const std::string& label = view.arrows[i].shape;
        const RouteKind kind = a.route.kind;
        if (kind == RouteKind::SideInput) {
            drawRoute(cv, a.route, kResidual, 1.5f, head * 0.8f);
            labelSideInput(cv, f, t, cv.at(a.route.points.front().x, a.route.points.front().y));
            continue;
        }
        if (kind == RouteKind::Residual) {
            drawRoute(cv, a.route, kResidual, 2.0f, head);
            continue;
        }
        if (kind == RouteKind::Up || kind == RouteKind::BackAcross) {
            // A gradient: its shape under the box it flows into, where it flows up its column.
            drawRoute(cv, a.route, kGradient, 1.5f, head);
            if (kind == RouteKind::Up && !label.empty())
                if (const std::string drawn = labelDown(cv, f, t, cv.at(t.x + t.w / 2, t.y + t.h), label); drawn != label && cutShape.empty()) cutShape = label;
            continue;
        }
        drawRoute(cv, a.route, kArrow, 1.5f, head);
        // One tensor feeding two boxes (normalizedH into gate and up) is named once, not twice on
        // the same spot.
        if (label.empty() || !labelled.insert({a.from, label}).second) continue;
        const ImVec2 below = cv.at(f.x + f.w / 2, f.y + f.h);  // the middle of the box's bottom edge
        const std::string drawn = kind == RouteKind::Lane     ? labelLane(cv, f, t, below, label)
                                  : kind == RouteKind::Across ? labelAcross(cv, f, label)
                                                              : labelDown(cv, f, t, below, label);
        if (kind == RouteKind::Lane) laneShapesWhole = laneShapesWhole.value_or(true) && drawn == label;
        if (drawn != label && cutShape.empty()) cutShape = label;
    }
}

// Boxes: lit when shown, blue when they ran at this step, grey before, hatched when skipped. A
// click shows the box's stage in its panel.
void drawBoxes(PanelContext& c, const ForwardMap& map, const ForwardMapView& view, const MapCanvas& cv) {
    for (size_t i = 0; i < map.boxes.size(); ++i) {
        const MapBox& b = map.boxes[i];
        const MapBoxView& bv = view.boxes[i];
        ImVec2 a = cv.at(b.x, b.y), e = cv.at(b.x + b.w, b.y + b.h);
        ImU32 fill = bv.state == BoxState::Current ? kCurrent
                     : bv.state == BoxState::Ran     ? (b.backward ? kRanBackward : kRan)
                     : bv.state == BoxState::Skipped ? kSkippedFill
                                                     : kNotYet;
        cv.dl->AddRectFilled(a, e, fill, 4);
        cv.dl->AddRect(a, e, bv.state == BoxState::Current ? IM_COL32(255, 230, 160, 255) : kBorder, 4, 0, bv.state == BoxState::Current ? 3 : 1);
        if (bv.state == BoxState::Skipped)
            for (float x = a.x + 6; x < e.x; x += 10) cv.dl->AddLine(ImVec2(x, e.y - 1), ImVec2(std::min(e.x, x + (e.y - a.y)), a.y + 1), kDim);
        std::string label = bv.state == BoxState::Skipped ? b.label + " (skipped)" : b.label;
        if (smallWidth(label, cv.boxFont) > e.x - a.x - 4) label = b.label;
        label = fitText(label, (e.x - a.x - 4) * ImGui::GetFontSize() / cv.boxFont);
        ImU32 ink = bv.state == BoxState::Current ? IM_COL32(20, 20, 20, 255) : bv.state == BoxState::Skipped ? kDim : IM_COL32(235, 238, 245, 255);
        cv.dl->AddText(ImGui::GetFont(), cv.boxFont, ImVec2((a.x + e.x - smallWidth(label, cv.boxFont)) / 2, (a.y + e.y - cv.boxFont) / 2), ink, label.c_str());

        ImGui::SetCursorScreenPos(a);
        ImGui::PushID(int(i));
        bool clicked = ImGui::InvisibleButton("box", ImVec2(std::max(1.0f, e.x - a.x), std::max(1.0f, e.y - a.y)));
        if (ImGui::IsItemHovered()) {
            ImGui::BeginTooltip();
            ImGui::Text("%d  %s", b.number, b.title.c_str());
            if (!bv.shape.empty()) ImGui::Text("%s %s", b.tensor.c_str(), bv.shape.c_str());
            if (bv.state == BoxState::Skipped) ImGui::TextUnformatted("did not run in this step");
            else if (bv.record < 0) ImGui::TextDisabled("not reached yet");
            else ImGui::TextDisabled("click: show this stage (%s panel)", panelTitle(panelFor(b.stage)));
            ImGui::EndTooltip();
        }
        if (clicked && bv.record >= 0) {
            c.view.selectedRecord = c.live && c.live->index == bv.record ? -1 : bv.record;
            if (b.inBlock) c.view.mapLayer = view.layer;
            c.showPanel(panelFor(b.stage));
        }
        ImGui::PopID();
    }

}

// When the map scrolls, the shown stage is brought into sight each time it changes.
void revealShownStage(PanelContext& c, const ForwardMap& map, const ForwardMapView& view, float s) {
    if (c.current && c.current->index != c.view.mapRevealed) {
        c.view.mapRevealed = c.current->index;
        for (size_t i = 0; i < map.boxes.size(); ++i)
            if (view.boxes[i].state == BoxState::Current) {
                const MapBox& b = map.boxes[i];
                ImGui::SetScrollX(std::max(0.0f, (b.x + b.w / 2) * s - ImGui::GetWindowWidth() / 2));
                ImGui::SetScrollY(std::max(0.0f, (b.y + b.h / 2) * s - ImGui::GetWindowHeight() / 2));
            }
    }

}

// The legend, under the map.
void drawMapLegend(const ForwardMap& map, const MapCanvas& cv) {
    const float font = ImGui::GetFontSize();
    ImDrawList* dl = cv.dl;
    ImGui::SetCursorScreenPos(cv.origin);
    ImGui::Dummy(ImVec2(map.width * cv.s, map.height * cv.s));
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    bool first = true;
    // Wrapped to the panel's width: the legend never makes the map scroll sideways.
    auto key = [&](ImU32 colour, const char* text) {
        if (!first && ImGui::GetCursorScreenPos().x + font * 1.5f + ImGui::CalcTextSize(text).x > right) ImGui::NewLine();
        first = false;
        ImVec2 p = ImGui::GetCursorScreenPos();
        dl->AddRectFilled(p, ImVec2(p.x + font, p.y + font), colour, 3);
        ImGui::Dummy(ImVec2(font, font));
        ImGui::SameLine();
        ImGui::TextUnformatted(text);
        ImGui::SameLine(0, font);
    };
    key(kCurrent, "shown stage");
    key(kRan, "ran in this step");
    if (map.backward) key(kRanBackward, "backward pass: each gradient beside its forward stage, flowing up");
    key(kNotYet, "not yet");
    key(kSkippedFill, "skipped");
    key(kResidual, "residual stream / side inputs");
    ImGui::NewLine();
}
}  // namespace

void drawMapPanel(PanelContext& c) {
    ForwardMap& map = c.caches.forwardMap;
    // A replayed trace has no model: its records say how deep the stack is.
    int layers = c.model ? c.model->args.n_layers : 0;
    if (!c.model)
        for (const auto& r : c.snap.records) layers = std::max(layers, r->layer + 1);
    // A training step's trace: its backward pass beside the forward one.
    const auto trace = c.session.trace();
    const std::optional<TraceTrainingInfo> training = trace ? trace->run.training : std::nullopt;
    const bool backward = training.has_value(), lora = backward && trainsLora(trace->stages);
    if (map.boxes.empty() || map.layers != layers || map.backward != backward || map.lora != lora)
        map = buildForwardMap(layers, {map.columnsPerBand, true, backward, lora});
    ForwardMapView view = viewForwardMap(map, c.snap.records, c.current, c.view.mapLayer);

    // No stack to draw before a model (or a trace's records) says how deep it is: not "x 0".
    if (layers == 0) {
        ImGui::PushTextWrapPos(0);
        if (c.status.state == SessionState::Loading) {
            ImGui::Text("Loading %s", c.sourceDescription.c_str());
            loadingBar(c.status.loading, std::min(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 20));
            ImGui::TextDisabled("The map is drawn once the model says how many layers it has; a large model takes a while to read in.");
        } else {
            ImGui::TextDisabled("No model loaded (%s): --model or File > Open trace.", stateName(c.status.state));
        }
        ImGui::PopTextWrapPos();
        return;
    }
    const float font = ImGui::GetFontSize();
    ImGui::PushTextWrapPos(0);  // the heading wraps in a narrow panel rather than run out of it
    if (c.current)
        ImGui::TextUnformatted(mapHeading(view.step, view.currentLayer, view.layer, c.view.mapLayer >= 0, layers, training).c_str());
    else
        ImGui::TextDisabled("The forward pass, stage by stage. Step (F10 or Space) starts a run; click a box to see that stage.");
    ImGui::PopTextWrapPos();
    if (c.view.mapLayer >= 0) {
        ImGui::SameLine();
        if (ImGui::SmallButton("Follow the shown stage")) c.view.mapLayer = -1;
    }
    exportPngButton(c, "map");
    if (!c.view.mapTabsOnBlock && layers > 0 && !c.exporting) layerButtons(c, view, layers);

    // Labels keep the body text's size; the map fills the panel's width, its columns wrapped into
    // bands one under another where side by side they would not hold their labels, and scrolls
    // down rather than sideways.
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float room = avail.x - ImGui::GetStyle().ScrollbarSize;  // a vertical scrollbar may come
    // The widest label a column holds at the body text's size (text widths grow with the size).
    float widest = 0;
    for (const MapBox& b : map.boxes) widest = std::max(widest, smallWidth(b.label, font));
    for (const MapArrowView& a : view.arrows) widest = std::max(widest, smallWidth(a.shape, font));
    // Text grows with the map (a projector), never smaller than the body text; arrows' a little
    // smaller than boxes'.
    auto boxFontAt = [&](float scale) { return std::clamp(scale * 0.32f, font, font * 1.6f); };
    auto labelFontAt = [&](float scale) { return std::max(font, boxFontAt(scale) * 0.9f); };
    const float columnW = forwardMapColumnWidth(), readable = (widest + 8) / columnW;  // units to pixels
    int perBand = forwardMapColumns();
    while (perBand > 1 && room / forwardMapWidth(perBand, backward) < readable) --perBand;
    if (map.columnsPerBand != perBand || !map.laneShapeRows) {
        map = buildForwardMap(layers, {perBand, true, backward, lora});
        view = viewForwardMap(map, c.snap.records, c.current, c.view.mapLayer);
    }
    const float legendH = ImGui::GetFrameHeightWithSpacing() + ImGui::GetStyle().ScrollbarSize;
    // The whole map in the panel when its labels still fit their columns at the body text's size;
    // else a little larger than that (more of it in sight than filling a wide panel would show),
    // scrolling down; never wider than the panel.
    const float heightFit = (avail.y - legendH) / map.height;
    const float s = std::min(room / map.width, std::max(heightFit, readable * 1.25f));
    if (std::fabs(s - c.caches.forwardMapScale) > 0.5f) c.view.mapRevealed = -1;  // relaid or rescaled: the shown stage again into sight
    c.caches.forwardMapScale = s;
    ImGui::BeginChild("map", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    // No larger than lets the widest label fit its column (never below the body text).
    const float fits = std::max(font, font * (columnW * s - 8) / std::max(1.0f, widest));
    const MapCanvas cv{ImGui::GetWindowDrawList(), ImGui::GetCursorScreenPos(), s, std::min(boxFontAt(s), fits), std::min(labelFontAt(s), fits)};
    c.view.mapLabelsBodySize = cv.small >= font && cv.boxFont >= font;

    drawSections(c, map, view, cv, layers);
    drawArrows(map, view, cv, c.view.mapLaneShapesWhole, c.view.mapCutShape);
    drawBoxes(c, map, view, cv);
    revealShownStage(c, map, view, s);
    drawMapLegend(map, cv);
    c.view.mapScrollsSideways = ImGui::GetScrollMaxX() > 0;
    ImGui::EndChild();
}

}  // namespace llama::viewer
