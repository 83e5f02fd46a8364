#pragma once
// What panels derive from the captured stages and keep between frames, so a frame does not
// rebuild it: the map's boxes, the timeline's tree, the Log panel's lines, the Chapter panel's
// measured block heights and the heatmaps' prepared slices. Owned by the app, one per window.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "state/colour_map.h"
#include "state/forward_map.h"
#include "state/run_history.h"
#include "state/tensor_slice.h"
#include "state/timeline.h"

namespace llama::viewer {

// The timeline's tree, extended by what was captured since it was last brought up to date and
// rebuilt for a new run.
struct TimelineTree {
    std::vector<TimelineStep> steps;
    uint64_t run = 0;
    size_t built = 0;
    void update(const std::vector<std::shared_ptr<const StageRecord>>& records, uint64_t runId);
};

// The Log panel's last lines ("s0 L1   13  " before each stage's message lines), for a snapshot version.
struct LogTail {
    static constexpr size_t kTailRecords = 400;
    std::vector<std::string> lines;
    uint64_t builtFor = 0;
    void update(const std::vector<std::shared_ptr<const StageRecord>>& records, uint64_t version);
    // The lines wrapped to the region's width (a projected Log is read, not hovered), continued
    // rows indented; `fit(text, width)` gives how many bytes of `text` fit (the font's word wrap).
    std::vector<std::string> rows;
    void wrap(float width, float fontSize, const std::function<size_t(std::string_view, float)>& fit);

private:
    uint64_t wrappedFor = 0;
    float wrappedWidth = -1, wrappedFont = -1;
};

// Blocks out of sight are not laid out: each block's height is remembered from when it was last
// drawn (for this document, width and font size), and a block wholly above or below the visible
// part leaves that much empty space instead. A frame then costs a screenful of text whatever the
// chapter's length.
struct BlockHeights {
    std::string source;
    size_t blocks = 0;
    float width = 0, font = 0;
    std::vector<float> height;  // < 0: not measured yet
    void use(const std::string& src, size_t n, float w, float f);
};

// A slice ready to draw, with its colours.
struct PreparedSlice {
    Slice2D slice;
    ColourScale scale;
};

// Prepared slices by key, each made once and kept while it is drawn: one not asked for in the
// last frame is dropped.
class PreparedSlices {
public:
    const PreparedSlice& get(const std::string& key, int frame, const std::function<PreparedSlice()>& make);

private:
    struct Entry {
        PreparedSlice prepared;
        int lastFrame;
    };
    std::unordered_map<std::string, Entry> entries_;
};

struct PanelCaches {
    ForwardMap forwardMap;  // for the model's depth
    float forwardMapScale = 0;  // pixels per map unit it was last drawn at
    TimelineTree timeline;
    LogTail log;
    BlockHeights chapterHeights;
    PreparedSlices slices;
};

}  // namespace llama::viewer
