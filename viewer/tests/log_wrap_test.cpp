// The Log panel's lines wrap to the region's width rather than run out of it (issue 48, item 4: a
// projected Log cannot be hovered for the rest of a line).
#include <catch2/catch.hpp>

#include "state/panel_caches.h"

using namespace llama::viewer;

TEST_CASE("the log's lines wrap at spaces to the width, continued rows indented") {
    LogTail log;
    log.lines = {"s0 L1   13  scores after softmax: shape [8 12 12]", "short"};
    // A font of 10 px per byte; a row holds what fits, breaking after a word as ImGui's word wrap does.
    const auto fit = [](std::string_view text, float width) {
        size_t n = std::min(text.size(), size_t(width / 10));
        if (n < text.size())
            if (const size_t space = text.substr(0, n).rfind(' '); space != std::string_view::npos && space > 0) n = space + 1;
        return n;
    };
    log.wrap(200, 10, fit);
    REQUIRE(log.rows.size() >= 3);
    for (const std::string& row : log.rows) CHECK(row.size() <= 20 + 4);
    CHECK(log.rows.front().starts_with("s0 L1"));
    CHECK(log.rows[1].starts_with("    "));
    CHECK(log.rows.back() == "short");
    // Every word is still there, in order.
    std::string joined;
    for (const std::string& row : log.rows) joined += row + " ";
    for (const char* word : {"scores", "after", "softmax:", "shape", "[8", "12]"}) CHECK(joined.find(word) != std::string::npos);
    // Wide enough: one row a line.
    log.wrap(10000, 10, fit);
    CHECK(log.rows.size() == 2);
}
