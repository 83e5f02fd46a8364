#pragma once
// What the Chapter panel shows: the current stage's section of its chapter, or a chapter the
// reader opened from a link, parsed once into a ChapterDocument; which checks the reader opened,
// and where to scroll. The panel only draws this.
#include <string>
#include <vector>

#include "doccheck/chapter_document.h"
#include "stages/stage_catalog.h"

namespace llama::viewer {

class ChapterReader {
public:
    // The stage the panels show. A stage other than the last one reloads its section and leaves
    // any chapter opened from a link.
    void showStage(const std::string& chaptersDir, const StageInfo& stage);
    // A link's target: "09-generation-loop.md", "09-generation-loop.md#the-kv-cache" or "#anchor"
    // (in the chapter shown). False, and nothing changes, for a target outside chapters/ (a web
    // address, another folder).
    bool followLink(const std::string& target);
    // Back to the stage's section after following links.
    void backToStage();
    bool showingLink() const { return !linkFile_.empty(); }

    const ChapterDocument& document() const { return doc_; }
    // "07-rope.md" or "07-rope.md#rope-scaling": the file under chapters/ shown.
    const std::string& source() const { return source_; }
    // Why nothing (or the whole file) is shown: missing file, no anchor; "" when all is well.
    const std::string& note() const { return note_; }

    // The file shown, without its anchor ("07-rope.md").
    std::string file() const { return source_.substr(0, source_.find('#')); }
    // The chapters a reader can choose (chapters/*.md, the outline README.md first), sorted.
    std::vector<std::string> chapterFiles() const;
    // The stages the catalog explains in `file`, in the order they run: a chapter links to them.
    static std::vector<StageId> stagesIn(const std::string& file);

    bool checkOpen(int check) const;
    void toggleCheck(int check);

    // The heading anchor to bring to the top once ("" with scrollToTop(): the top).
    const std::string& scrollTarget() const { return scrollTarget_; }
    bool scrollToTop() const { return scrollTop_; }
    void scrolled() { scrollTarget_.clear(), scrollTop_ = false; }

private:
    void load(const std::string& markdown);
    std::string dir_;
    std::string stageKey_;
    bool hasStage_ = false;
    std::string linkFile_;  // "" while the stage's section is shown
    ChapterDocument doc_;
    std::string source_, note_;
    std::vector<bool> openChecks_;
    std::string scrollTarget_;
    bool scrollTop_ = false;
};

}  // namespace llama::viewer
