#pragma once
// A chapter of chapters/*.md as a reader sees it: md4c (GitHub dialect: tables, autolinks)
// parses the Markdown into a flat list of blocks made of styled spans, which a front end only
// draws (the viewer's Chapter panel) or checks (the tests). HTML comments never become text;
// `<details><summary>Show check</summary> ... </details>` becomes a check whose blocks stay
// folded until the reader opens it; a ```console block after a `<!-- try-it -->` marker keeps
// its `$ ` commands for a Copy button.
#include <string>
#include <string_view>
#include <vector>

namespace llama {

struct MarkdownSpan {
    std::string text;  // "\n" alone: a hard line break
    bool code = false;
    bool emphasis = false;
    bool strong = false;
    std::string link;   // the target of a link, "" outside links
    std::string image;  // an image's source as written (relative to the chapter); the text is its alt text

    bool sameStyle(const MarkdownSpan& o) const {
        return code == o.code && emphasis == o.emphasis && strong == o.strong && link == o.link && image == o.image;
    }
};
using MarkdownLine = std::vector<MarkdownSpan>;

struct ChapterBlock {
    enum class Kind { Heading, Paragraph, Code, Table, Rule };
    Kind kind = Kind::Paragraph;
    int level = 0;       // Heading: 1-6
    int depth = 0;       // nesting in lists and quotes (indentation)
    std::string marker;  // the first block of a list item: "3." or "•"
    int check = -1;      // inside a folded check: its index in ChapterDocument::checks
    MarkdownLine spans;  // Heading, Paragraph
    std::string anchor;  // Heading: its GitHub anchor ("the-kv-cache")
    std::string language, code;         // Code: the fence's language and the text, '\n'-separated
    bool tryIt = false;                 // Code: marked `<!-- try-it -->`, run by the test suite
    std::vector<std::string> commands;  // Code (console): the `$ ` lines without "$ ", continuations kept
    std::vector<std::vector<MarkdownLine>> rows;  // Table: rows of cells, rows[0] the header
};

struct ChapterCheck {
    std::string summary;  // what shows while folded ("Show check")
};

struct ChapterDocument {
    std::vector<ChapterBlock> blocks;
    std::vector<ChapterCheck> checks;
};

// Throws std::runtime_error when md4c fails (out of memory) or a `</details>` has no `<details>`.
ChapterDocument parseChapterDocument(std::string_view markdown);

// GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'.
std::string headingAnchor(std::string_view headingText);

// The plain text of spans, of a block (cells separated by " | ", code as is).
std::string spansText(const MarkdownLine& spans);
std::string blockText(const ChapterBlock& block);

// Everything a reader sees before opening any check: the blocks outside checks and the
// checks' summaries, one block per line.
std::string visibleText(const ChapterDocument& document);

}  // namespace llama
