// Try-it blocks (engine/doccheck/try_it.h): how chapters are read and how printed output is
// compared with what they quote.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "doccheck/try_it.h"

namespace fs = std::filesystem;
using namespace llama;

namespace {
std::vector<TryItBlock> blocksOf(const std::string& markdown) {
    const fs::path p = fs::temp_directory_path() / ("llama_try_it_parse_" + std::to_string(::getpid()) + ".md");
    std::ofstream(p) << markdown;
    auto blocks = parseTryItBlocks(p.string());
    fs::remove(p);
    return blocks;
}
TryItBlock block(std::vector<std::string> expected, TryItBlock::Compare c = TryItBlock::Compare::LinesPresent, double tol = -1) {
    TryItBlock b;
    b.commands = {"true"};
    b.expected = std::move(expected);
    b.compare = c;
    b.tolerance = tol;
    return b;
}
}  // namespace

TEST_CASE("try-it: markers, commands, continuations, indented blocks, exercises", "[try-it]") {
    auto blocks = blocksOf(
        "# Title\n"
        "```\n$ not a try-it: a plain fence\n```\n"
        "```console\n$ an illustration: no marker, not run\n```\n"
        "<!-- try-it -->\n"
        "```console\n$ llama-walkthrough -q \\\n  -n 1\nout 1\n\n$ echo two\ntwo\n```\n"
        "<!-- try-it: compare=exact tolerance=1e-3 exit=1 -->\n"
        "```console\n$ false\n```\n"
        "## Exercises\n"
        "1. A question?\n\n"
        "   <!-- try-it: compare=lines-any-order -->\n"
        "   ```console\n   $ echo a\n   a\n   ```\n");
    REQUIRE(blocks.size() == 3);
    CHECK(blocks[0].line == 9);
    CHECK(blocks[0].closeLine == 16);
    CHECK(blocks[0].indent == 0);
    CHECK(blocks[0].commands == std::vector<std::string>{"llama-walkthrough -q \\\n  -n 1", "echo two"});
    CHECK(blocks[0].expected == std::vector<std::string>{"out 1", "", "two"});
    CHECK(blocks[0].compare == TryItBlock::Compare::LinesPresent);
    CHECK(blocks[0].tolerance < 0);
    CHECK_FALSE(blocks[0].exercise);
    CHECK(blocks[1].compare == TryItBlock::Compare::Exact);
    CHECK(blocks[1].tolerance == 1e-3);
    CHECK(blocks[1].exitCode == 1);
    CHECK(blocks[2].exercise);
    CHECK(blocks[2].compare == TryItBlock::Compare::LinesAnyOrder);
    CHECK(blocks[2].commands == std::vector<std::string>{"echo a"});
    CHECK(blocks[2].expected == std::vector<std::string>{"a"});
    CHECK(blocks[2].closeLine == 28);  // the list item's fence, where its "Run it here" note goes
    CHECK(blocks[2].indent == 3);
}

TEST_CASE("try-it: malformed markers and blocks are errors naming file and line", "[try-it]") {
    CHECK_THROWS_WITH(blocksOf("text\n<!-- try-it: compare=fuzzy -->\n```console\n$ x\n```\n"),
                      Catch::Contains(":2: try-it setting 'compare=fuzzy'"));
    CHECK_THROWS_WITH(blocksOf("<!-- try-it: tolerance=abc -->\n```console\n$ x\n```\n"), Catch::Contains("tolerance=abc"));
    CHECK_THROWS_WITH(blocksOf("<!-- try-it -->\nsome text\n```console\n$ x\n```\n"),
                      Catch::Contains(":1: try-it marker not followed by a ```console block"));
    CHECK_THROWS_WITH(blocksOf("<!-- try-it -->\n```text\nx\n```\n"), Catch::Contains(":1: try-it marker not followed"));
    CHECK_THROWS_WITH(blocksOf("<!-- try-it -->\n```console\nonly output\n```\n"), Catch::Contains(":2: console block without a '$ ' command"));
    CHECK_THROWS_WITH(blocksOf("<!-- try-it -->\n```console\n$ x\n"), Catch::Contains("not closed"));
}

TEST_CASE("try-it: timestamps, durations, speeds and spacing are ignored", "[try-it]") {
    CHECK(normalizeOutputLine("[DEBUG]05:21:26.423582 Calling ml.Silu for h shape([9 1024]) -> tensor h (0.0001 secs)") ==
          "[DEBUG] Calling ml.Silu for h shape([9 1024]) -> tensor h");
    CHECK(normalizeOutputLine("  prefill: 146.9 tok/s |  decode:   0.0 tok/s  ") == "prefill: N tok/s | decode: N tok/s");
    CHECK(normalizeOutputLine("\rLoading weights:  50%\rLoading weights: 100% (19.4 / 19.4 MB)") == "Loading weights: 100% (19.4 / 19.4 MB)");
    CHECK(tryItLineMatches("[DEBUG]... Sampled next token 44 \",\"", "[DEBUG]07:44:25.102402 Sampled next token 44 \",\" (0.0001 secs)", -1));
    CHECK_FALSE(tryItLineMatches("[DEBUG]... Sampled next token 268 \" of\"", "[DEBUG]07:44:25.102402 Sampled next token 44 \",\"", -1));
}

TEST_CASE("try-it: numbers within the tolerance, and ... for any text", "[try-it]") {
    CHECK(tryItLineMatches("mean 0.1234 max 2.5", "mean 0.12345 max 2.5004", 1e-3));
    CHECK_FALSE(tryItLineMatches("mean 0.1234 max 2.5", "mean 0.1284 max 2.5", 1e-3));
    CHECK_FALSE(tryItLineMatches("mean 0.1234", "mean 0.12345", -1));  // no tolerance: as text
    CHECK(tryItLineMatches("1000000 bytes", "1000400 bytes", 1e-3));   // relative for large numbers
    CHECK_FALSE(tryItLineMatches("1000000 bytes", "1002000 bytes", 1e-3));
    CHECK(tryItLineMatches("Debug log written to ...", "Debug log written to /tmp/x/debug.log", -1));
    CHECK(tryItLineMatches("a ... c 1.0", "a b b c 1.00001", 1e-3));
    CHECK_FALSE(tryItLineMatches("a ... c", "a b b d", -1));
    CHECK(tryItLineMatches("x (1+2)*[3]?", "x (1+2)*[3]?", -1));  // regex characters are literal
}

TEST_CASE("try-it: lines present in order, in any order, or exactly", "[try-it]") {
    using C = TryItBlock::Compare;
    const std::string out = "one\ntwo\nthree\n\n";
    CHECK(checkTryItOutput(block({"one", "three"}), 0, out).ok);
    CHECK(checkTryItOutput(block({"three", "one"}, C::LinesAnyOrder), 0, out).ok);
    auto wrongOrder = checkTryItOutput(block({"three", "one"}), 0, out);
    CHECK_FALSE(wrongOrder.ok);
    CHECK(wrongOrder.problem == "expected line not printed (after the previous one): \"one\"");
    CHECK(checkTryItOutput(block({"one", "two", "three"}, C::Exact), 0, out).ok);
    auto extra = checkTryItOutput(block({"one", "two"}, C::Exact), 0, out);
    CHECK_FALSE(extra.ok);
    CHECK(extra.problem == "output line 3 differs: expected \"(nothing more)\", printed \"three\"");
    auto status = checkTryItOutput(block({"one"}), 1, out);
    CHECK_FALSE(status.ok);
    CHECK(status.problem == "exit status 1, expected 0");
}
