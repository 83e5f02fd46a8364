#pragma once
// The chapter text for a stage: chapters/<file> as the stage catalog names it, cut to the
// section that starts at the anchor comment `<!-- stage: KEY -->` (up to the next anchor).
#include <string>

#include "stages/stage_catalog.h"

namespace llama::viewer {

struct ChapterSection {
    std::string path;
    bool fileFound = false;
    bool anchorFound = false;  // false: `text` is the whole file
    std::string text;
};

ChapterSection chapterSection(const std::string& chaptersDir, const StageInfo& stage);
// The section of `markdown` for `key`, or "" when it has no such anchor.
std::string sectionForKey(const std::string& markdown, std::string_view key);

}  // namespace llama::viewer
