// The Chapter panel's model (state/chapter_reader.h): every stage's section and every chapter
// read as the panel draws them, with no raw Markdown and no check on display; links followed.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "state/chapter_reader.h"

namespace fs = std::filesystem;
using namespace llama;
using namespace llama::viewer;

namespace {

// What a reader would see of Markdown's syntax or of an answer in the drawn document.
void checkReadsLikeABook(const ChapterReader& reader) {
    const ChapterDocument& doc = reader.document();
    INFO(reader.source());
    CHECK_FALSE(doc.blocks.empty());
    for (const ChapterBlock& b : doc.blocks) {
        const std::string text = blockText(b);
        INFO(text);
        if (b.kind == ChapterBlock::Kind::Code) {
            // Code shows as written ('#' comments, "-->" arrows); a fence or marker in it means
            // the block swallowed what follows it.
            CHECK(text.find("```") == std::string::npos);
            CHECK(text.find("<!-- try-it") == std::string::npos);
            continue;
        }
        CHECK(text.rfind("#", 0) == std::string::npos);
        CHECK(text.find("\n#") == std::string::npos);
        // Outside inline code (which may name the syntax, as chapters/README.md does).
        std::vector<const MarkdownLine*> lines;
        if (b.kind == ChapterBlock::Kind::Table)
            for (const auto& row : b.rows)
                for (const auto& cell : row) lines.push_back(&cell);
        else
            lines.push_back(&b.spans);
        for (const MarkdownLine* line : lines)
            for (const MarkdownSpan& s : *line) {
                if (s.code) continue;
                for (const char* raw : {"<!--", "-->", "<details", "</details", "<summary", "```", "]("})
                    CHECK(s.text.find(raw) == std::string::npos);
            }
    }
    for (size_t c = 0; c < doc.checks.size(); ++c) {
        CHECK(doc.checks[c].summary == "Show check");
        CHECK_FALSE(reader.checkOpen(int(c)));
    }
    // Each check's answer is only inside its fold.
    const std::string visible = visibleText(doc);
    for (const ChapterBlock& b : doc.blocks) {
        if (b.check < 0) continue;
        const std::string text = blockText(b);
        if (text.size() >= 12) CHECK(visible.find(text) == std::string::npos);
    }
}

}  // namespace

TEST_CASE("chapter reader: every stage's section reads like a book", "[chapter]") {
    ChapterReader reader;
    int checks = 0;
    for (const StageInfo& stage : stageCatalog()) {
        reader.showStage(CHAPTERS_DIR, stage);
        INFO(stage.key);
        CHECK(reader.note().empty());  // the chapter exists and has the stage's anchor
        CHECK(reader.source() == std::string(stage.chapter));
        checkReadsLikeABook(reader);
        checks += int(reader.document().checks.size());
    }
    CHECK(checks > 0);  // the sections that end a chapter carry its exercises
}

TEST_CASE("chapter reader: every chapter reads like a book", "[chapter]") {
    ChapterReader reader;
    reader.showStage(CHAPTERS_DIR, stageCatalog().front());
    int files = 0, checks = 0;
    for (const auto& e : fs::directory_iterator(CHAPTERS_DIR)) {
        if (e.path().extension() != ".md") continue;
        ++files;
        REQUIRE(reader.followLink(e.path().filename().string()));
        CHECK(reader.note().empty());
        checkReadsLikeABook(reader);
        checks += int(reader.document().checks.size());
    }
    CHECK(files >= 17);
    CHECK(checks >= 40);
}

TEST_CASE("chapter reader: links open chapters and sections, the stage's section comes back", "[chapter]") {
    ChapterReader reader;
    const StageInfo& stage = *findStage("tokenize");
    reader.showStage(CHAPTERS_DIR, stage);
    const std::string stageFirst = blockText(reader.document().blocks.front());
    CHECK_FALSE(reader.showingLink());

    REQUIRE(reader.followLink("09-generation-loop.md#the-kv-cache"));
    CHECK(reader.showingLink());
    CHECK(reader.source() == "09-generation-loop.md#the-kv-cache");
    CHECK(reader.scrollTarget() == "the-kv-cache");
    CHECK(reader.note().empty());
    reader.scrolled();
    CHECK(reader.scrollTarget().empty());
    // An anchor in the chapter shown.
    REQUIRE(reader.followLink("#exercises"));
    CHECK(reader.source() == "09-generation-loop.md#exercises");
    // A section that is not there: the chapter from its beginning, and a note saying so.
    REQUIRE(reader.followLink("./07-rope.md#no-such-section"));
    CHECK(reader.source() == "07-rope.md#no-such-section");
    CHECK(reader.note().find("No section #no-such-section") != std::string::npos);
    CHECK(reader.scrollToTop());

    // Not chapters: the panel leaves them alone.
    for (const char* outside : {"https://github.com/ggerganov/llama.cpp", "../README.md", "/etc/passwd.md", "no-such-chapter.md", ""})
        CHECK_FALSE(reader.followLink(outside));
    CHECK(reader.source() == "07-rope.md#no-such-section");

    // The same stage again keeps the chapter the reader went to; "back" returns to the section.
    reader.showStage(CHAPTERS_DIR, stage);
    CHECK(reader.showingLink());
    reader.backToStage();
    CHECK_FALSE(reader.showingLink());
    CHECK(blockText(reader.document().blocks.front()) == stageFirst);
}

TEST_CASE("chapter reader: a check opens when asked and a new stage folds it again", "[chapter]") {
    ChapterReader reader;
    reader.showStage(CHAPTERS_DIR, *findStage("tokenize"));
    REQUIRE(reader.followLink("08-tokenization.md#exercises"));
    REQUIRE(reader.document().checks.size() >= 2);
    reader.toggleCheck(1);
    CHECK(reader.checkOpen(1));
    CHECK_FALSE(reader.checkOpen(0));
    reader.toggleCheck(1);
    CHECK_FALSE(reader.checkOpen(1));
    reader.toggleCheck(0);
    reader.showStage(CHAPTERS_DIR, *findStage("sample"));
    for (size_t c = 0; c < reader.document().checks.size(); ++c) CHECK_FALSE(reader.checkOpen(int(c)));
}

TEST_CASE("chapter reader: a link to a FIFO or a folder named like a chapter is refused at once, saying why", "[chapter][hostile]") {
    const fs::path dir = fs::temp_directory_path() / ("llama_chapter_fifo_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "02-folder.md");
    std::ofstream(dir / "01-one.md") << "# One\n\n<!-- stage: tokenize -->\ntext\n";
    REQUIRE(::mkfifo((dir / "03-fifo.md").c_str(), 0600) == 0);
    ChapterReader reader;
    reader.showStage(dir.string(), *findStage("tokenize"));
    CHECK_FALSE(reader.followLink("03-fifo.md"));  // returns: a FIFO is never opened for reading
    CHECK_THAT(reader.note(), Catch::Contains("03-fifo.md") && Catch::Contains("FIFO"));
    CHECK_FALSE(reader.followLink("02-folder.md"));
    CHECK_THAT(reader.note(), Catch::Contains("is a folder"));
    fs::remove_all(dir);
}
