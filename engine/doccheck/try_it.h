#pragma once
// "Try it" blocks of chapters/*.md: a fenced `console` block whose `$ ` lines are commands and
// whose other lines are what they print, preceded by a marker comment stating how the output is
// compared (a console block without one is an illustration, not run):
//
//     <!-- try-it: compare=lines-present tolerance=1e-3 exit=0 -->
//     ```console
//     $ llama-walkthrough -q --prompt "The cat" -n 2
//     The cat sat on
//     ```
//
// compare=lines-present (default): the expected lines appear among the printed lines, in order
//   (other lines may come between them).
// compare=lines-any-order: each expected line is printed somewhere, in any order.
// compare=exact: the printed lines are the expected lines, no more (trailing blank lines aside).
// tolerance=T: numbers match when |got - expected| <= T * max(1, |expected|); without it they
//   match as text.
// exit=N: the exit status expected of the commands (default 0).
// Always: timestamps ([DEBUG]05:21:26.423582), durations ((0.0005 secs)) and speeds (N tok/s)
// are ignored, runs of spaces count as one, leading and trailing spaces are dropped, `...` in an
// expected line stands for any text. A command line ending in `\` continues on the next line.
// Blocks under a "## Exercises" heading are exercises' answer checks.
#include <string>
#include <vector>

namespace llama {

struct TryItBlock {
    enum class Compare { LinesPresent, LinesAnyOrder, Exact };
    std::string file;  // file name only, e.g. "10-forward-pass.md"
    int line = 0;      // of the opening fence
    int closeLine = 0;  // of the closing fence
    int indent = 0;     // of the fences: the block is inside a list item (or <details> in one)
    std::vector<std::string> commands;
    std::vector<std::string> expected;
    Compare compare = Compare::LinesPresent;
    double tolerance = -1;  // < 0: numbers match as text
    int exitCode = 0;
    bool exercise = false;  // under "## Exercises"
};

// Every marked console block of the Markdown file. Throws std::runtime_error naming file:line for a
// marker that is malformed or not followed by a console block, or a block without a command.
std::vector<TryItBlock> parseTryItBlocks(const std::string& path);

// One printed (or expected) line as it is compared: timestamps, durations and speeds blanked,
// what a progress bar overwrote with '\r' dropped, spaces collapsed.
std::string normalizeOutputLine(const std::string& line);

// Whether one printed line matches one expected line under the block's rules.
bool tryItLineMatches(const std::string& expected, const std::string& printed, double tolerance);

struct TryItCheck {
    bool ok = false;
    std::string problem;  // when not ok: which expected line was not found, or how they differ
};
TryItCheck checkTryItOutput(const TryItBlock& block, int exitCode, const std::string& output);

}  // namespace llama
