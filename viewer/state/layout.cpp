#include "state/layout.h"

#include <algorithm>
#include <cmath>

namespace llama::viewer {

namespace {
// A fraction of `total` for a region, so that it and what remains are both at least `least`.
float keepWithin(float fraction, float total, float least) {
    if (total <= 2 * least) return 0.5f;
    return std::clamp(fraction, least / total, 1 - least / total);
}

// The left column: by default wide enough for the controls (about 26 characters) but at most
// two fifths, so the panels keep most of a laptop's screen; dragged, up to three fifths.
float leftFraction(const LayoutState& s, LayoutRect area, const LayoutMetrics& m) {
    float f = s.leftWidth > 0 ? s.leftWidth : std::clamp(26 * m.fontSize / area.w, 0.2f, 0.4f);
    return std::clamp(f, std::min(0.5f, m.minRegion / area.w), 0.6f);
}
}  // namespace

LayoutState defaultLayout(LayoutRect area, const LayoutMetrics& m) {
    LayoutState s;
    const bool roomy = area.h >= 32 * m.fontSize;
    s.isOpen(Region::Output) = s.isOpen(Region::Log) = roomy;
    return s;
}

LayoutRect Layout::of(Region r) const {
    for (const auto& x : regions)
        if (x.region == r) return x.rect;
    return {};
}

Layout computeLayout(const LayoutState& s, LayoutRect area, const LayoutMetrics& m) {
    Layout l;
    const float sp = m.splitter;
    // Both left regions folded: the column keeps only their title lines' width, the panels the rest.
    const bool leftFolded = !s.isOpen(Region::Run) && !s.isOpen(Region::Timeline);
    const float leftW = leftFolded ? std::min(std::round(10 * m.fontSize), std::round(area.w * leftFraction(s, area, m)))
                                   : std::round(area.w * leftFraction(s, area, m));
    const float rightX = area.x + leftW + sp, rightW = area.w - leftW - sp;

    // Left: the run controls over the timeline; a closed one keeps its title line.
    const bool run = s.isOpen(Region::Run), timeline = s.isOpen(Region::Timeline);
    float runH = run && timeline ? std::round((area.h - sp) * keepWithin(s.runHeight, area.h - sp, m.minRegion))
                 : run           ? area.h - sp - m.title
                                 : m.title;
    l.regions.push_back({Region::Run, {area.x, area.y, leftW, runH}});
    l.regions.push_back({Region::Timeline, {area.x, area.y + runH + sp, leftW, area.h - runH - sp}});
    l.splitters.push_back({Splitter::Left, {area.x + leftW, area.y, sp, area.h}, true});
    if (run && timeline) l.splitters.push_back({Splitter::Run, {area.x, area.y + runH, leftW, sp}, false});

    // Right: the panels over the output and the log.
    const bool output = s.isOpen(Region::Output), log = s.isOpen(Region::Log);
    float bottomH = output || log ? std::round((area.h - sp) * keepWithin(s.bottomHeight, area.h - sp, m.minRegion)) : m.title;
    const float panelsH = area.h - bottomH - sp;
    l.regions.push_back({Region::Panels, {rightX, area.y, rightW, panelsH}});
    const float bottomY = area.y + panelsH + sp;
    float outW = output && log ? std::round((rightW - sp) * keepWithin(s.outputWidth, rightW - sp, m.minRegion))
                 : output      ? rightW - sp - m.title * 6
                               : m.title * 6;  // a closed one keeps room for its title
    if (!output && !log) outW = std::round((rightW - sp) / 2);
    l.regions.push_back({Region::Output, {rightX, bottomY, outW, bottomH}});
    l.regions.push_back({Region::Log, {rightX + outW + sp, bottomY, rightW - outW - sp, bottomH}});
    if (output || log) l.splitters.push_back({Splitter::Bottom, {rightX, area.y + panelsH, rightW, sp}, false});
    if (output && log) l.splitters.push_back({Splitter::Output, {rightX + outW, bottomY, sp, bottomH}, true});
    return l;
}

void dragSplitter(LayoutState& s, Splitter which, float delta, LayoutRect area, const LayoutMetrics& m) {
    switch (which) {
        case Splitter::Left: {
            s.leftWidth = leftFraction(s, area, m) + delta / area.w;
            s.leftWidth = leftFraction(s, area, m);
            break;
        }
        case Splitter::Run: s.runHeight = keepWithin(s.runHeight + delta / area.h, area.h, m.minRegion); break;
        case Splitter::Bottom: s.bottomHeight = keepWithin(s.bottomHeight - delta / area.h, area.h, m.minRegion); break;
        case Splitter::Output: {
            float rightW = area.w * (1 - leftFraction(s, area, m));
            s.outputWidth = keepWithin(s.outputWidth + delta / rightW, rightW, m.minRegion);
            break;
        }
    }
}

}  // namespace llama::viewer
