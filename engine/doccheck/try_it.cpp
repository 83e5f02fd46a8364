#include "doccheck/try_it.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tokenizer/pcre2_pattern.h"

namespace llama {

namespace {

const char* const kNumber = R"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)";

std::string trimRight(std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
    return s;
}

// "<!-- try-it: compare=exact tolerance=1e-3 -->" on this line: its settings applied to `block`.
bool parseMarker(const std::string& line, TryItBlock& block, const std::string& where) {
    static const Pattern marker(R"(\s*<!--\s*try-it:?(.*?)-->\s*)");
    const auto m = marker.matchWhole(line);
    if (!m) return false;
    std::istringstream settings((*m)[1]);
    for (std::string item; settings >> item;) {
        const size_t eq = item.find('=');
        const std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
        try {
            size_t used = 0;
            if (key == "compare" && value == "lines-present") block.compare = TryItBlock::Compare::LinesPresent;
            else if (key == "compare" && value == "lines-any-order") block.compare = TryItBlock::Compare::LinesAnyOrder;
            else if (key == "compare" && value == "exact") block.compare = TryItBlock::Compare::Exact;
            else if (key == "tolerance" && (block.tolerance = std::stod(value, &used)) >= 0 && used == value.size()) {}
            else if (key == "exit" && (block.exitCode = std::stoi(value, &used)) >= 0 && used == value.size()) {}
            else throw std::invalid_argument(item);
        } catch (const std::logic_error&) {
            throw std::runtime_error(fmt::format("{}: try-it setting '{}' is not one of compare=lines-present|lines-any-order|exact, "
                                                 "tolerance=NUMBER >= 0, exit=STATUS",
                                                 where, item));
        }
    }
    return true;
}

// The expected line as a regular expression: `...` is any text, numbers (with a tolerance)
// are captured to be compared by value, everything else is literal.
Pattern expectedPattern(const std::string& expected, bool numbers) {
    static const Pattern number(kNumber);
    std::string pattern;
    auto literal = [&](const std::string& text) { pattern += Pattern::quote(text); };
    auto addText = [&](const std::string& text) {
        if (!numbers) return literal(text);
        size_t pos = 0;
        for (const auto& [at, length] : number.findAll(text)) {
            literal(text.substr(pos, at - pos));
            pattern += std::string("(") + kNumber + ")";
            pos = at + length;
        }
        literal(text.substr(pos));
    };
    size_t pos = 0;
    for (size_t dots; (dots = expected.find("...", pos)) != std::string::npos; pos = dots + 3) {
        addText(expected.substr(pos, dots - pos));
        pattern += ".*?";
    }
    addText(expected.substr(pos));
    return Pattern(pattern);
}

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(normalizeOutputLine(line));
    while (!lines.empty() && lines.back().empty()) lines.pop_back();
    return lines;
}

}  // namespace

std::vector<TryItBlock> parseTryItBlocks(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open '" + path + "'");
    const std::string file = std::filesystem::path(path).filename().string();
    std::vector<TryItBlock> blocks;
    TryItBlock pending;           // settings of a marker waiting for its block
    int markerLine = 0;           // 0: no marker waiting
    bool inExercises = false;
    std::string fence;            // the open fence's indentation + backticks; "" outside fences
    TryItBlock* open = nullptr;   // the console block being read
    bool continued = false;       // the last command line ended in '\\'
    int lineNo = 0;
    for (std::string line; std::getline(in, line);) {
        ++lineNo;
        line = trimRight(line);
        const size_t indent = line.find_first_not_of(' ');
        const std::string body = indent == std::string::npos ? "" : line.substr(indent);
        if (!fence.empty()) {
            if (body.rfind("```", 0) == 0 && body.find_first_not_of('`') == std::string::npos) {
                if (open && open->commands.empty())
                    throw std::runtime_error(fmt::format("{}:{}: console block without a '$ ' command line", file, open->line));
                if (open) open->closeLine = lineNo;
                fence.clear();
                open = nullptr;
                continue;
            }
            if (!open) continue;
            // Lines are indented like the fence (a block inside a list item).
            const std::string text = line.substr(std::min(line.size(), std::min(indent, fence.size() - 3)));
            if (continued) open->commands.back() += "\n" + text;
            else if (text.rfind("$ ", 0) == 0) open->commands.push_back(text.substr(2));
            else open->expected.push_back(text);
            continued = (continued || text.rfind("$ ", 0) == 0) && !text.empty() && text.back() == '\\';
            continue;
        }
        if (body.rfind("## ", 0) == 0) inExercises = body == "## Exercises";
        if (body.rfind("```", 0) == 0) {
            fence = std::string(indent, ' ') + "```";
            if (body == "```console" && markerLine) {
                blocks.push_back(pending);
                open = &blocks.back();
                open->file = file;
                open->line = lineNo;
                open->indent = int(indent);
                open->exercise = inExercises;
            } else if (markerLine) {
                throw std::runtime_error(fmt::format("{}:{}: try-it marker not followed by a ```console block", file, markerLine));
            }
            markerLine = 0;
            continue;
        }
        if (line.find("try-it") != std::string::npos && line.find("<!--") != std::string::npos) {
            pending = TryItBlock{};
            if (!parseMarker(line, pending, fmt::format("{}:{}", file, lineNo)))
                throw std::runtime_error(fmt::format("{}:{}: malformed try-it marker (<!-- try-it: compare=... -->)", file, lineNo));
            markerLine = lineNo;
        } else if (markerLine && !body.empty()) {
            throw std::runtime_error(fmt::format("{}:{}: try-it marker not followed by a ```console block", file, markerLine));
        }
    }
    if (!fence.empty()) throw std::runtime_error(fmt::format("{}: a fenced block is not closed", file));
    if (markerLine) throw std::runtime_error(fmt::format("{}:{}: try-it marker not followed by a ```console block", file, markerLine));
    return blocks;
}

std::string normalizeOutputLine(const std::string& line) {
    static const Pattern timestamp(R"(\[DEBUG\](?:\d\d:\d\d:\d\d\.\d+|\.\.\.)? ?)");
    static const Pattern duration(R"( \(\d+\.\d+ secs\)$)");
    static const Pattern speed(R"(\d+(?:\.\d+)? tok/s)");
    std::string s = line.substr(line.find_last_of('\r') == std::string::npos ? 0 : line.find_last_of('\r') + 1);
    s = timestamp.replaceAll(s, "[DEBUG] ");
    s = duration.replaceAll(trimRight(s), "");
    s = speed.replaceAll(s, "N tok/s");
    std::string out;
    for (char c : s) {
        if (c == '\t') c = ' ';
        if (c == ' ' && (out.empty() || out.back() == ' ')) continue;  // leading spaces too: tables are re-aligned
        out += c;
    }
    return trimRight(out);
}

bool tryItLineMatches(const std::string& expected, const std::string& printed, double tolerance) {
    const std::string want = normalizeOutputLine(expected), got = normalizeOutputLine(printed);
    if (want.find("...") == std::string::npos && tolerance < 0) return want == got;
    const auto m = expectedPattern(want, tolerance >= 0).matchWhole(got);
    if (!m) return false;
    if (tolerance < 0) return true;
    // The expected line's numbers, in order, against the captured ones.
    static const Pattern number(kNumber);
    const auto numbers = number.findAll(want);
    for (size_t group = 1; group < m->size() && group - 1 < numbers.size(); ++group) {
        const auto [at, length] = numbers[group - 1];
        const double e = std::stod(want.substr(at, length)), g = std::stod((*m)[group]);
        if (!(std::fabs(g - e) <= tolerance * std::max(1.0, std::fabs(e)))) return false;
    }
    return true;
}

TryItCheck checkTryItOutput(const TryItBlock& block, int exitCode, const std::string& output) {
    if (exitCode != block.exitCode) return {false, fmt::format("exit status {}, expected {}", exitCode, block.exitCode)};
    const std::vector<std::string> printed = splitLines(output);
    std::vector<std::string> expected;
    for (const auto& e : block.expected) expected.push_back(normalizeOutputLine(e));
    while (!expected.empty() && expected.back().empty()) expected.pop_back();
    auto matches = [&](const std::string& e, const std::string& p) { return tryItLineMatches(e, p, block.tolerance); };

    using C = TryItBlock::Compare;
    if (block.compare == C::Exact) {
        for (size_t i = 0; i < std::max(expected.size(), printed.size()); ++i) {
            if (i < expected.size() && i < printed.size() && matches(expected[i], printed[i])) continue;
            return {false, fmt::format("output line {} differs: expected \"{}\", printed \"{}\"", i + 1,
                                       i < expected.size() ? expected[i] : "(nothing more)",
                                       i < printed.size() ? printed[i] : "(nothing more)")};
        }
        return {true, ""};
    }
    size_t from = 0;
    for (const auto& e : expected) {
        if (e.empty()) continue;  // blank lines separate groups for the reader
        const size_t start = block.compare == C::LinesPresent ? from : 0;
        auto it = std::find_if(printed.begin() + std::min(start, printed.size()), printed.end(),
                               [&](const std::string& p) { return matches(e, p); });
        if (it == printed.end())
            return {false, fmt::format("expected line not printed{}: \"{}\"", block.compare == C::LinesPresent && start ? " (after the previous one)" : "", e)};
        from = size_t(it - printed.begin()) + 1;
    }
    return {true, ""};
}

}  // namespace llama
