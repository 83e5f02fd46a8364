// Exercise checks wait for the student: in every chapter a check's summary says only "Show
// check", its answer and its checked Try-it block are inside the fold, and no answer text shows
// before the fold is opened (chapters read with engine/doccheck/chapter_document.h, as the viewer
// draws them; GitHub and the course website fold the same <details>).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "doccheck/chapter_document.h"
#include "doccheck/try_it.h"
#include "test_files.h"

namespace fs = std::filesystem;
using namespace llama;

namespace {

// Text shorter than this ("9", "[1 256]") may well appear in a question too.
constexpr size_t kDistinctive = 12;

// What is wrong with the checks of one chapter; empty when they all wait.
std::vector<std::string> checkProblems(const std::string& markdown, const std::vector<TryItBlock>& tryIt) {
    std::vector<std::string> problems;
    const ChapterDocument doc = parseChapterDocument(markdown);
    for (const ChapterCheck& c : doc.checks)
        if (c.summary != "Show check") problems.push_back("a summary shows \"" + c.summary + "\" (it should say only \"Show check\")");

    const std::string visible = visibleText(doc);
    for (const ChapterBlock& b : doc.blocks) {
        if (b.check < 0) continue;
        const std::string body = b.kind == ChapterBlock::Kind::Code ? "" : blockText(b);
        if (body.size() >= kDistinctive && visible.find(body) != std::string::npos)
            problems.push_back("the answer \"" + body + "\" also shows outside its fold");
    }
    // Every exercise's checked Try-it block is folded. (What it prints may show elsewhere: the
    // chapter's own Try-it blocks often print the same lines for another prompt.)
    for (const TryItBlock& t : tryIt) {
        if (!t.exercise) continue;
        bool folded = false;
        for (const ChapterBlock& b : doc.blocks)
            folded = folded || (b.kind == ChapterBlock::Kind::Code && b.check >= 0 && b.commands == t.commands);
        if (!folded) problems.push_back(t.file + ":" + std::to_string(t.line) + ": an exercise's check is not inside <details>");
    }
    // Every exercise (a top-level item of the list under "## Exercises") has a check.
    bool inExercises = false;
    int exercise = -1;  // block of the exercise waiting for its check
    auto unchecked = [&] {
        if (exercise >= 0) problems.push_back("exercise \"" + blockText(doc.blocks[exercise]) + "\" has no check");
        exercise = -1;
    };
    for (int i = 0; i < int(doc.blocks.size()); ++i) {
        const ChapterBlock& b = doc.blocks[i];
        if (b.kind == ChapterBlock::Kind::Heading && b.level <= 2) {
            unchecked();
            inExercises = spansText(b.spans) == "Exercises";
        } else if (inExercises && b.check >= 0) {
            exercise = -1;
        } else if (inExercises && b.depth == 1 && !b.marker.empty()) {
            unchecked();
            exercise = i;
        }
    }
    unchecked();
    return problems;
}

}  // namespace

TEST_CASE("chapters: every exercise's check waits for a click", "[chapters][checks]") {
    int files = 0, exercises = 0;
    for (const auto& e : fs::directory_iterator(CHAPTERS_DIR)) {
        if (e.path().extension() != ".md") continue;
        ++files;
        const std::vector<TryItBlock> tryIt = parseTryItBlocks(e.path().string());
        for (const TryItBlock& t : tryIt) exercises += t.exercise;
        INFO(e.path().filename().string());
        const std::vector<std::string> problems = checkProblems(readFile(e.path()), tryIt);
        for (const std::string& p : problems) FAIL_CHECK(p);
        CHECK(problems.empty());
    }
    CHECK(files >= 16);
    CHECK(exercises >= 40);  // the chapters' exercises were really found and looked at
}

TEST_CASE("chapters: the check test finds answers on display", "[chapters][checks]") {
    const std::string question = "## Exercises\n\n1. How many tokens does the verse become?\n\n";
    const std::string fold =
        "   <!-- try-it -->\n   ```console\n   $ llama-walkthrough tokenize \"In the beginning\"\n"
        "   Token ids: 3 (a run puts the begin-of-text token 3840 in front)\n   ```\n   </details>\n";
    TryItBlock t;
    t.file = "x.md";
    t.exercise = true;
    t.commands = {"llama-walkthrough tokenize \"In the beginning\""};
    t.expected = {"Token ids: 3 (a run puts the begin-of-text token 3840 in front)"};

    CHECK(checkProblems(question + "   <details><summary>Show check</summary>\n\n   Three, four with begin-of-text\n\n" + fold, {t})
              .empty());
    // The answer in the summary, as GitHub shows it while folded.
    CHECK(checkProblems(question + "   <details><summary>Check: 3</summary>\n\n" + fold, {t}).size() == 1);
    // The answer repeated in the question's text.
    CHECK(checkProblems("## Exercises\n\n1. Three, four with begin-of-text: how many tokens?\n\n"
                        "   <details><summary>Show check</summary>\n\n   Three, four with begin-of-text\n\n" + fold, {t})
              .size() == 1);
    // The checked block outside the fold.
    CHECK(checkProblems(question + fold.substr(0, fold.find("   </details>")) + "\n   <details><summary>Show check</summary>\n\n   Three\n\n   </details>\n", {t})
              .size() == 1);
    // An exercise with no check.
    CHECK(checkProblems(question + "2. And this one?\n", {}).size() == 2);  // neither 1 nor 2 has a check
}
