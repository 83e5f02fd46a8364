#pragma once
// Where the viewer's regions go in the window: the run controls and the stage timeline on the
// left, the panels (the map first) on the right, the output and the log under them. Splitters
// move the borders, each region collapses to its title line; sizes are fractions of the window,
// kept within limits so no region is squeezed below a few lines of text at any UI scale.
#include <vector>

namespace llama::viewer {

struct LayoutRect {
    float x = 0, y = 0, w = 0, h = 0;
};

enum class Region { Run, Timeline, Panels, Output, Log };
enum class Splitter { Left, Run, Bottom, Output };  // what each moves: the left column's width, ...

struct LayoutState {
    float leftWidth = 0;      // fraction of the width; 0: chosen from the font size (defaultLayout)
    float runHeight = 0.52f;  // fraction of the left column
    float bottomHeight = 0.26f;
    float outputWidth = 0.42f;  // fraction of the bottom row
    bool open[5] = {true, true, true, true, true};  // by Region; a closed region shows its title only

    bool& isOpen(Region r) { return open[int(r)]; }
    bool isOpen(Region r) const { return open[int(r)]; }
};

struct LayoutMetrics {
    float title = 24;     // a region's title line (what a collapsed region keeps)
    float splitter = 6;   // a splitter's thickness
    float minRegion = 120;  // an open region's smallest side
    float fontSize = 16;
};

struct RegionRect {
    Region region;
    LayoutRect rect;
};
struct SplitterRect {
    Splitter splitter;
    LayoutRect rect;
    bool vertical;  // dragged sideways
};
struct Layout {
    std::vector<RegionRect> regions;
    std::vector<SplitterRect> splitters;
    LayoutRect of(Region r) const;
};

// The layout a window starts with: on a small screen for the text size (a 1366x768 laptop at UI
// scale 2 holds about 24 lines), the output and the log start folded so the panels keep room.
LayoutState defaultLayout(LayoutRect area, const LayoutMetrics& m);
Layout computeLayout(const LayoutState& state, LayoutRect area, const LayoutMetrics& m);
// Moves a splitter by `delta` pixels (positive: right or down), within the limits.
void dragSplitter(LayoutState& state, Splitter s, float delta, LayoutRect area, const LayoutMetrics& m);

}  // namespace llama::viewer
