#pragma once
// The forward pass as a map: one box per stage of the stage catalog (stages.def), laid out as
// the walkthrough draws it — tokens and embedding, one transformer block (standing for the stack
// of N), the output and sampling — and for a training step the backward pass beside it: each
// column's backward stages in a column of their own at its right, each in the row of the forward
// stage it differentiates, the gradient flowing up. Arrows are routed through the gaps between the boxes
// (forward_map_routes.cpp), that carry the tensor flowing along them. The layout is in abstract
// units (a column is 3 units wide, a row 1 unit tall) so the panel scales it to any window and an
// HTML export can serialise it as it is; `viewForwardMap` adds what a run
// captured: which box is lit, which ran, which were skipped, and each arrow's shape at this step.
#include <memory>
#include <string>
#include <vector>

#include "state/run_history.h"
#include "trace/trace_reader.h"
#include "state/view_state.h"

namespace llama::viewer {

struct MapBox {
    StageId stage{};
    std::string key;     // the catalog's key; "qkv.xq" for one of the three parallel Q/K/V tasks
    std::string tensor;  // the recorded tensor this box produces ("" when the stage records none)
    std::string label;   // short, as the diagram names it ("RMSNorm", "Q", "softmax")
    std::string title;   // the catalog's title
    int number = 0;      // the walkthrough's stage number
    bool inBlock = false;
    bool backward = false;    // a backward stage, in its column's backward part
    int column = 0, row = 0;  // the diagram's column (0: before the blocks) and row, whatever the bands
    int band = 0;             // the band the column is drawn in (a narrow layout: ForwardMap::columnsPerBand)
    float x = 0, y = 0, w = 0, h = 0;
};

struct MapPoint {
    float x = 0, y = 0;
};

// How an arrow runs between its boxes, which also says how its label is placed.
enum class RouteKind {
    Down,       // down its column into `to`'s top, with an elbow where their middles differ
    Lane,       // out of one of Q, K and V, turning under the row their three shapes are written in
    Join,       // a result joining the flow further down its column (up into SiLU(gate) x up): down
                // the column's right edge, around the boxes between, into `to`'s right side
    Across,     // into another column, or a column of a lower band, entering `to`'s top
    SideInput,  // a short stub into `to`'s left side, named after `from` (the RoPE angles, the mask)
    Residual,   // the residual stream: out of `from`'s right side, along the gaps, into `to`'s left side
    Up,         // a gradient up its backward column, from `from`'s top into `to`'s bottom
    BackAcross, // a gradient into the column before (or a band above): out of `from`'s top, along the
                // gap over it, up or down the gap right of `to`'s column, into `to`'s right side
};

// An arrow's path in map units: every segment horizontal or vertical, the head at the last point.
struct MapRoute {
    RouteKind kind = RouteKind::Down;
    std::vector<MapPoint> points;
};

struct MapArrow {
    int from = 0, to = 0;  // box indices
    std::string tensor;    // the tensor of `from` that flows along the arrow
    bool side = false;     // a side input (the RoPE frequencies, the mask) or the residual stream
    MapRoute route;        // where it is drawn, from the boxes' places
};

struct MapSection {
    std::string title;  // "Before the blocks", "Transformer block", "Output"
    int band = 0;
    bool block = false;  // the block's frame with its layer tabs (its first band's part, in a narrow layout)
    float x = 0, y = 0, w = 0, h = 0;
};

struct ForwardMap {
    std::vector<MapBox> boxes;
    std::vector<MapArrow> arrows;
    std::vector<MapSection> sections;
    int layers = 0;  // the stack's depth, N_Layers
    int columnsPerBand = 0;  // 0: every column side by side; else columns wrap into bands, one under another
    bool laneShapeRows = false;  // Q/K/V's row has room under it for their three shapes, one a line
    bool backward = false;       // the backward stages beside the forward ones (a training step)
    bool lora = false;           // and the adapters' backward (a LoRA fine-tuning step)
    float width = 0, height = 0;

    int find(std::string_view key) const;  // box index, -1 when absent
    int findStage(StageId stage) const;    // the stage's first box (Q of Q, K and V), -1 when absent
};

// The catalog stages a map leaves out: the Q/K/V tasks' scheduling marks (the qkv box's three
// lanes stand for them) and the control vector's (an experiment's stage, not the model's); the
// training stages unless it has a backward column, and then the stages a training window does
// not run (tokenizing a prompt, the generation loop, sampling).
bool mapOmits(StageId stage, bool backward = false, bool lora = false);
// Whether a training trace is a LoRA fine-tuning step's: it records lora_backward stages.
bool trainsLora(const std::vector<TracedStage>& stages);
// The forward stage a training stage differentiates (the loss: the logits; an adapter's backward:
// its product, which the map does not show).
StageId forwardStageOf(StageId trainingStage);
// The forward stage whose row a training stage's box takes on the map: the one it differentiates,
// but for an adapter's backward.
StageId mapRowOf(StageId trainingStage);

// The diagram's layout: one row of columns (an HTML export's), or for a narrow window the columns
// wrapped `columnsPerBand` to a band, and room for Q/K/V's shapes (the viewer's, whose labels keep
// the body text's size). Every layout has the same boxes and arrows, in the same order.
struct MapLayout {
    int columnsPerBand = 0;
    bool laneShapeRows = false;
    bool backward = false;
    bool lora = false;  // with backward: a LoRA fine-tuning step's, with its adapters' backward box
};
ForwardMap buildForwardMap(int layers, MapLayout layout = {});
// The path of `arrow` between its boxes where `map` placed them: it leaves `from` at an edge, runs
// through the gaps between boxes and enters `to` at an edge (buildForwardMap routes every arrow).
MapRoute routeArrow(const ForwardMap& map, const MapArrow& arrow);
// How many columns the diagram has (the outside stages, the block's three, the output), and in
// map units a column's width (its forward part's, where it has a backward part) and the whole
// map's with `columnsPerBand` columns side by side.
int forwardMapColumns();
float forwardMapColumnWidth();
float forwardMapWidth(int columnsPerBand, bool backward = false);

enum class BoxState { NotYet, Ran, Current, Skipped };

struct MapBoxView {
    BoxState state = BoxState::NotYet;
    int record = -1;    // the captured record to jump to, -1 when none
    std::string shape;  // the box's output at this step ("[10 256]"; "[10 256] → [10 8 32]" when it reshapes)
};

struct MapArrowView {
    std::string shape;  // the carried tensor's shape at this step, "" before it ran
};

struct ForwardMapView {
    int step = 0, layer = 0;  // what the map shows: a token step, a layer of the stack
    int currentLayer = -1;    // the layer of the shown stage (-1 outside the blocks)
    std::vector<MapBoxView> boxes;
    std::vector<MapArrowView> arrows;
};

// The map at `current`'s token step, the block at `layer` (-1: current's layer, else the first).
ForwardMapView viewForwardMap(const ForwardMap& map, const std::vector<std::shared_ptr<const StageRecord>>& records,
                              const StageRecord* current, int layer);

// The panel a click on a stage's box opens: the one that shows that stage best.
Panel panelFor(StageId stage);
// A record of a stage that did not run (a what-if, repeatKV with N_Rep 1, no mask to add).
bool recordSkipped(const StageRecord& r);

}  // namespace llama::viewer
