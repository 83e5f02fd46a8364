// The window's layout on a 1366x768 laptop and a 1920x1080 projector, at UI scale 1 and 2:
// every region inside the window, none overlapping, open ones at least a few lines big,
// splitters kept within limits, closed regions giving their room to the others.
#include <catch2/catch.hpp>

#include "state/layout.h"

using namespace llama::viewer;

namespace {
LayoutMetrics metricsAt(float scale) {
    LayoutMetrics m;
    m.fontSize = 16 * scale, m.title = 26 * scale, m.splitter = 6, m.minRegion = 5 * 16 * scale;
    return m;
}

bool overlap(LayoutRect a, LayoutRect b) { return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h; }

void checkFits(const Layout& l, LayoutRect area, const LayoutState& s, const LayoutMetrics& m) {
    for (size_t i = 0; i < l.regions.size(); ++i) {
        LayoutRect r = l.regions[i].rect;
        INFO("region " << int(l.regions[i].region) << " at " << r.x << "," << r.y << " " << r.w << "x" << r.h);
        CHECK(r.x >= area.x);
        CHECK(r.y >= area.y);
        CHECK(r.x + r.w <= area.x + area.w + 0.5f);
        CHECK(r.y + r.h <= area.y + area.h + 0.5f);
        CHECK(r.h >= m.title);
        if (s.isOpen(l.regions[i].region)) CHECK((r.w >= m.minRegion && r.h >= std::min(m.minRegion, area.h / 3)));
        for (size_t j = i + 1; j < l.regions.size(); ++j) CHECK_FALSE(overlap(r, l.regions[j].rect));
    }
}
}  // namespace

TEST_CASE("the layout fits a laptop and a projector at UI scale 1 and 2") {
    for (LayoutRect area : {LayoutRect{0, 22, 1366, 746}, LayoutRect{0, 22, 1920, 1058}})
        for (float scale : {1.0f, 2.0f}) {
            INFO(area.w << "x" << area.h << " at scale " << scale);
            LayoutMetrics m = metricsAt(scale);
            LayoutState s = defaultLayout(area, m);
            // A laptop at scale 2 folds the output and the log; a projector at scale 1 does not.
            CHECK(s.isOpen(Region::Log) == (area.h > 1000 || scale == 1.0f));
            Layout l = computeLayout(s, area, m);
            checkFits(l, area, s, m);
            // The panels (the map) get most of the width and, on a small screen, most of the height.
            CHECK(l.of(Region::Panels).w >= 0.6f * area.w - m.splitter);
            CHECK(l.of(Region::Panels).h >= 0.7f * area.h);
            // Dragging a splitter far past its limit stops at the limit.
            dragSplitter(s, Splitter::Left, 5000, area, m);
            dragSplitter(s, Splitter::Bottom, -5000, area, m);
            dragSplitter(s, Splitter::Run, 5000, area, m);
            dragSplitter(s, Splitter::Output, -5000, area, m);
            checkFits(computeLayout(s, area, m), area, s, m);
        }
}

TEST_CASE("a splitter moves its border and a closed region gives its room away") {
    LayoutRect area{0, 0, 1366, 768};
    LayoutMetrics m = metricsAt(1);
    LayoutState s;
    Layout before = computeLayout(s, area, m);
    dragSplitter(s, Splitter::Left, 100, area, m);
    CHECK(computeLayout(s, area, m).of(Region::Run).w == Approx(before.of(Region::Run).w + 100).margin(1));

    s = {};
    s.isOpen(Region::Run) = false;
    Layout closed = computeLayout(s, area, m);
    CHECK(closed.of(Region::Run).h == m.title);
    CHECK(closed.of(Region::Timeline).h > before.of(Region::Timeline).h);
    s.isOpen(Region::Output) = s.isOpen(Region::Log) = false;
    closed = computeLayout(s, area, m);
    CHECK(closed.of(Region::Output).h == m.title);
    CHECK(closed.of(Region::Panels).h > before.of(Region::Panels).h);
    checkFits(closed, area, s, m);
}


TEST_CASE("folding both left regions gives their column's width to the panels") {
    for (float scale : {1.0f, 2.0f}) {
        const LayoutRect area{0, 22, 1024, 746};
        const LayoutMetrics m = metricsAt(scale);
        LayoutState s = defaultLayout(area, m);
        const float open = computeLayout(s, area, m).of(Region::Panels).w;
        s.isOpen(Region::Run) = s.isOpen(Region::Timeline) = false;
        const Layout l = computeLayout(s, area, m);
        INFO("scale " << scale);
        // The titles keep their line ("Stage timeline" with its triangle), nothing more.
        CHECK(l.of(Region::Run).w == Approx(10 * m.fontSize).margin(1));
        CHECK(l.of(Region::Panels).w > open);
        CHECK(l.of(Region::Panels).w == Approx(area.w - 10 * m.fontSize - m.splitter).margin(1));
    }
}
