// A chapter's Markdown as a reader sees it (engine/doccheck/chapter_document.h): md4c's blocks
// and spans, comments dropped, checks folded, try-it commands kept.
#include <catch2/catch.hpp>

#include "doccheck/chapter_document.h"

using namespace llama;
using Kind = ChapterBlock::Kind;

TEST_CASE("chapter document: headings, paragraphs, emphasis, inline code, links", "[chapter-document]") {
    const ChapterDocument doc = parseChapterDocument(
        "# The KV cache\n\n"
        "<!-- stage: kv_cache -->\n"
        "A *cached* key is **read**, not `recomputed`;\nsee [chapter 9](09-generation-loop.md#the-kv-cache).\n\n"
        "## The KV cache\n\n---\n");
    REQUIRE(doc.blocks.size() == 4);
    CHECK(doc.blocks[0].kind == Kind::Heading);
    CHECK(doc.blocks[0].level == 1);
    CHECK(doc.blocks[0].anchor == "the-kv-cache");
    CHECK(doc.blocks[2].anchor == "the-kv-cache-1");  // GitHub numbers a repeated anchor
    CHECK(doc.blocks[3].kind == Kind::Rule);
    const ChapterBlock& p = doc.blocks[1];
    CHECK(p.kind == Kind::Paragraph);
    CHECK(spansText(p.spans) == "A cached key is read, not recomputed; see chapter 9.");  // the soft break is a space
    auto span = [&](const std::string& text) {
        for (const auto& s : p.spans)
            if (s.text == text) return s;
        FAIL("no span \"" << text << "\"");
        return MarkdownSpan{};
    };
    CHECK(span("cached").emphasis);
    CHECK(span("read").strong);
    CHECK(span("recomputed").code);
    CHECK(span("chapter 9").link == "09-generation-loop.md#the-kv-cache");
    CHECK(doc.checks.empty());
}

TEST_CASE("chapter document: lists, tight and loose, nested, with their numbers", "[chapter-document]") {
    const ChapterDocument doc = parseChapterDocument(
        "3. three\n4. four\n   - inner\n\n"
        "- loose one\n\n- loose two\n");
    REQUIRE(doc.blocks.size() == 5);
    CHECK(doc.blocks[0].marker == "3.");
    CHECK(spansText(doc.blocks[0].spans) == "three");
    CHECK(doc.blocks[0].depth == 1);
    CHECK(doc.blocks[1].marker == "4.");
    CHECK(doc.blocks[2].marker == "\u2022");
    CHECK(doc.blocks[2].depth == 2);
    CHECK(spansText(doc.blocks[3].spans) == "loose one");
    CHECK(doc.blocks[4].marker == "\u2022");
}

TEST_CASE("chapter document: tables and code blocks - try-it console blocks keep their commands", "[chapter-document]") {
    const ChapterDocument doc = parseChapterDocument(
        "| tensor | shape |\n| --- | --- |\n| `xq` | [9 8 32] |\n\n"
        "```go\n# a comment, not a heading\nx := 1\n```\n\n"
        "<!-- try-it: compare=exact -->\n"
        "```console\n$ llama-walkthrough tokenize \\\n    \"a b\"\nToken ids: 2\n$ echo done\ndone\n```\n"
        "```console\n$ an illustration\n```\n");
    REQUIRE(doc.blocks.size() == 4);
    const ChapterBlock& t = doc.blocks[0];
    REQUIRE(t.kind == Kind::Table);
    REQUIRE(t.rows.size() == 2);
    CHECK(spansText(t.rows[0][1]) == "shape");
    CHECK(t.rows[1][0][0].code);
    CHECK(blockText(t) == "tensor | shape\nxq | [9 8 32]\n");
    CHECK(doc.blocks[1].kind == Kind::Code);
    CHECK(doc.blocks[1].language == "go");
    CHECK(doc.blocks[1].code == "# a comment, not a heading\nx := 1");
    CHECK_FALSE(doc.blocks[1].tryIt);
    CHECK(doc.blocks[1].commands.empty());
    CHECK(doc.blocks[2].tryIt);
    CHECK(doc.blocks[2].commands == std::vector<std::string>{"llama-walkthrough tokenize \\\n    \"a b\"", "echo done"});
    CHECK_FALSE(doc.blocks[3].tryIt);
    CHECK(doc.blocks[3].commands == std::vector<std::string>{"an illustration"});
}

TEST_CASE("chapter document: comments never show, checks stay folded", "[chapter-document]") {
    const ChapterDocument doc = parseChapterDocument(
        "1. How many tokens?\n\n"
        "   <details><summary>Show check</summary>\n\n"
        "   11, and 12 with the *begin-of-text* token\n\n"
        "   <!-- try-it: compare=lines-present -->\n"
        "   ```console\n   $ llama-walkthrough tokenize \"x\"\n   Token ids: 11\n   ```\n"
        "   </details>\n\n"
        "2. Next <!-- an inline comment --> question\n\n"
        "<details>\n\nno summary\n</details>\n");
    REQUIRE(doc.checks.size() == 2);
    CHECK(doc.checks[0].summary == "Show check");
    CHECK(doc.checks[1].summary == "Details");  // as a browser shows a <details> without one
    REQUIRE(doc.blocks.size() == 5);
    CHECK(doc.blocks[0].check == -1);
    CHECK(doc.blocks[0].marker == "1.");
    CHECK(doc.blocks[1].check == 0);
    CHECK(spansText(doc.blocks[1].spans) == "11, and 12 with the begin-of-text token");
    CHECK(doc.blocks[2].check == 0);
    CHECK(doc.blocks[2].tryIt);
    CHECK(doc.blocks[3].check == -1);
    CHECK(spansText(doc.blocks[3].spans) == "Next question");
    CHECK(doc.blocks[4].check == 1);
    const std::string visible = visibleText(doc);
    CHECK(visible == "How many tokens?\nShow check\nNext question\nDetails\n");
}

TEST_CASE("chapter document: a stray </details> is an error, text in HTML blocks is kept", "[chapter-document]") {
    CHECK_THROWS_WITH(parseChapterDocument("text\n\n</details>\n"), Catch::Contains("</details> without <details>"));
    const ChapterDocument doc = parseChapterDocument("<div>kept &amp; shown</div>\n\nA &lt;tag&gt; &#x2581;\n");
    REQUIRE(doc.blocks.size() == 2);
    CHECK(spansText(doc.blocks[0].spans) == "kept &amp; shown");  // raw HTML: entities as written
    CHECK(spansText(doc.blocks[1].spans) == "A <tag> \u2581");
}

TEST_CASE("chapter document: an image keeps its source, its alt text is the span's text", "[chapter-document]") {
    const ChapterDocument doc = parseChapterDocument("Before.\n\n![The *map* of a pass](../docs/figures/map.png)\n\nAfter.\n");
    REQUIRE(doc.blocks.size() == 3);
    const MarkdownLine& figure = doc.blocks[1].spans;
    REQUIRE_FALSE(figure.empty());
    for (const MarkdownSpan& s : figure) CHECK(s.image == "../docs/figures/map.png");
    CHECK(spansText(figure) == "The map of a pass");
    for (const MarkdownSpan& s : doc.blocks[0].spans) CHECK(s.image.empty());
}
