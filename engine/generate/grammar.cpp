#include "generate/grammar.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

namespace llama {

bool GrammarElement::matches(uint32_t cp) const {
    const auto after = std::upper_bound(ranges.begin(), ranges.end(), cp, [](uint32_t c, const auto& r) { return c < r.first; });
    const bool in = after != ranges.begin() && cp <= std::prev(after)->second;
    return in != negated;
}

namespace {
// Whether some code point in [low, high] is matched.
bool matchesAnyIn(const GrammarElement& e, uint32_t low, uint32_t high) {
    if (!e.negated)
        return std::any_of(e.ranges.begin(), e.ranges.end(), [&](const auto& r) { return r.first <= high && low <= r.second; });
    // Negated: some code point of [low, high] lies outside every range unless the ranges cover it all.
    uint32_t next = low;
    for (const auto& [a, b] : e.ranges) {
        if (a > next) return true;
        if (b >= next) {
            if (b >= high) return false;
            next = b + 1;
        }
    }
    return next <= high;
}
}  // namespace

bool GrammarElement::matchesTextIn(uint32_t low, uint32_t high) const {
    low = std::max<uint32_t>(low, 1);  // no NUL
    const uint32_t belowSurrogates = std::min<uint32_t>(high, 0xD7FF), aboveSurrogates = std::max<uint32_t>(low, 0xE000);
    return (low <= belowSurrogates && matchesAnyIn(*this, low, belowSurrogates)) ||
           (aboveSurrogates <= high && matchesAnyIn(*this, aboveSurrogates, high));
}

int Grammar::ruleIndex(std::string_view name) const {
    for (size_t i = 0; i < rules.size(); ++i)
        if (rules[i].name == name) return int(i);
    return -1;
}

std::string_view Grammar::userRuleName(int rule) const {
    const std::string& name = rules[size_t(rule)].name;
    return std::string_view(name).substr(0, name.find('_'));
}

namespace {

// A code point as GBNF writes it inside a literal or a class.
std::string codePointText(uint32_t cp) {
    if (cp >= 0x20 && cp < 0x7f && cp != '"' && cp != '\\' && cp != ']' && cp != '[') return std::string(1, char(cp));
    if (cp == '\n') return "\\n";
    if (cp == '\t') return "\\t";
    if (cp == '\r') return "\\r";
    if (cp < 0x80 && (cp < 0x20 || cp == 0x7f)) return fmt::format("\\x{:02X}", cp);
    if (cp < 0x80) return fmt::format("\\{}", char(cp));
    if (cp <= 0xffff) return fmt::format("\\u{:04X}", cp);
    return fmt::format("\\U{:08X}", cp);
}

// Groups nest no deeper than this, so hostile input cannot exhaust the parser's stack.
constexpr int kMaxNesting = 64;
// Repetitions are written out ({1000} copies of a group of {1000}): the grammar stays this small.
constexpr size_t kMaxElements = 200000;
constexpr uint32_t kMaxCount = 10000;  // the largest m or n of {m,n}

class Parser {
public:
    Parser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

    Grammar parse() {
        skipSpace(true);
        if (atEnd()) throw GrammarError(fmt::format("{}: the grammar is empty: it has no rules (a grammar needs at least `root ::= ...`)", source_));
        while (!atEnd()) {
            parseRule();
            skipSpace(true);
        }
        for (const auto& [name, use] : references_)
            if (!defined_.count(name)) fail(use, fmt::format("undefined rule '{}'", name));
        grammar_.root = grammar_.ruleIndex("root");
        if (grammar_.root < 0) throw GrammarError(fmt::format("{}: the grammar has no rule named root (the rule generation starts from)", source_));
        checkLeftRecursion();
        checkEveryRuleEnds();
        return std::move(grammar_);
    }

private:
    [[noreturn]] void fail(size_t offset, const std::string& what) const {
        int line = 1, column = 1;
        for (size_t i = 0; i < offset && i < text_.size(); ++i) {
            if (text_[i] == '\n') {
                ++line;
                column = 1;
            } else if ((uint8_t(text_[i]) & 0xC0) != 0x80) {
                ++column;
            }
        }
        throw GrammarError(fmt::format("{}:{}:{}: {}", source_, line, column, what));
    }
    std::string found() const {
        if (atEnd()) return "the end of the grammar";
        if (peek() == '\n' || peek() == '\r') return "the end of the line";
        return fmt::format("'{}'", codePointText(uint8_t(peek())));
    }

    bool atEnd() const { return pos_ >= text_.size(); }
    char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
    static bool isWordChar(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'; }

    // Spaces, tabs and comments; newlines too where a rule may continue (inside groups, after ::=).
    void skipSpace(bool newlineOk) {
        while (!atEnd()) {
            char c = peek();
            if (c == ' ' || c == '\t') {
                ++pos_;
            } else if (c == '#') {
                while (!atEnd() && peek() != '\n' && peek() != '\r') ++pos_;
            } else if (newlineOk && (c == '\n' || c == '\r')) {
                ++pos_;
            } else {
                break;
            }
        }
    }

    std::string parseName() {
        size_t start = pos_;
        while (!atEnd() && isWordChar(peek())) ++pos_;
        if (pos_ == start) fail(pos_, fmt::format("expected a rule name (letters, digits and '-'), found {}", found()));
        return std::string(text_.substr(start, pos_ - start));
    }

    int ruleFor(const std::string& name) {
        int id = grammar_.ruleIndex(name);
        if (id >= 0) return id;
        grammar_.rules.push_back({name, {}});
        return int(grammar_.rules.size()) - 1;
    }
    int newRule(const std::string& parent, std::vector<GrammarSequence> alternatives) {
        std::string name;
        do name = fmt::format("{}_{}", parent, ++generated_);
        while (grammar_.ruleIndex(name) >= 0 || defined_.count(name) || references_.count(name));
        grammar_.rules.push_back({name, std::move(alternatives)});
        defined_[name] = pos_;
        countElements(grammar_.rules.back().alternatives);
        return int(grammar_.rules.size()) - 1;
    }
    void countElements(const std::vector<GrammarSequence>& alternatives) {
        for (const auto& s : alternatives) elements_ += s.size();
        if (elements_ > kMaxElements)
            fail(pos_, fmt::format("the grammar grows past {} elements once its repetitions are written out", kMaxElements));
    }

    void parseRule() {
        size_t start = pos_;
        std::string name = parseName();
        skipSpace(false);
        if (text_.substr(pos_, 3) != "::=") fail(pos_, fmt::format("expected '::=' after the rule name '{}', found {}", name, found()));
        if (auto it = defined_.find(name); it != defined_.end()) fail(start, fmt::format("rule '{}' is defined twice", name));
        defined_[name] = start;
        pos_ += 3;
        skipSpace(true);
        const int id = ruleFor(name);  // before its groups' rules, so describe() reads in source order
        auto alternatives = parseAlternatives(name, 0);
        grammar_.rules[size_t(id)].alternatives = std::move(alternatives);
        countElements(grammar_.rules[size_t(id)].alternatives);
        if (!atEnd() && peek() != '\n' && peek() != '\r')
            fail(pos_, fmt::format("expected the end of rule '{}' (a new line), found {}", name, found()));
    }

    std::vector<GrammarSequence> parseAlternatives(const std::string& rule, int depth) {
        std::vector<GrammarSequence> alternatives;
        alternatives.push_back(parseSequence(rule, depth));
        while (peek() == '|') {
            ++pos_;
            skipSpace(true);
            alternatives.push_back(parseSequence(rule, depth));
        }
        return alternatives;
    }

    uint32_t parseHex(int digits, size_t escape) {
        uint32_t value = 0;
        for (int i = 0; i < digits; ++i) {
            char c = peek();
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) fail(pos_, fmt::format("expected {} hexadecimal digits in this escape, found {}", digits, found()));
            value = value * 16 + uint32_t(d);
            ++pos_;
        }
        if (value > 0x10FFFF) fail(escape, fmt::format("U+{:X} is beyond Unicode's last code point", value));
        return value;
    }

    // One character of a literal or a class, escapes and UTF-8 decoded.
    uint32_t parseChar() {
        size_t start = pos_;
        uint8_t c = uint8_t(peek());
        if (c == '\\') {
            ++pos_;
            char e = peek();
            ++pos_;
            switch (e) {
                case 'x': return parseHex(2, start);
                case 'u': return parseHex(4, start);
                case 'U': return parseHex(8, start);
                case 't': return '\t';
                case 'r': return '\r';
                case 'n': return '\n';
                case '\\': case '"': case '[': case ']': return uint32_t(e);
                default: fail(start, fmt::format("unknown escape '\\{}' (known: \\x.. \\u.... \\U........ \\t \\r \\n \\\\ \\\" \\[ \\])", codePointText(uint8_t(e))));
            }
        }
        int extra = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
        if (extra < 0) fail(start, fmt::format("invalid UTF-8 byte 0x{:02X}", c));
        uint32_t cp = extra == 0 ? c : c & (0x3F >> extra);
        ++pos_;
        for (int i = 0; i < extra; ++i) {
            if ((uint8_t(peek()) & 0xC0) != 0x80) fail(start, "invalid UTF-8 sequence");
            cp = (cp << 6) | (uint8_t(peek()) & 0x3F);
            ++pos_;
        }
        return cp;
    }

    // A literal's character must be one text can hold.
    void requireText(uint32_t cp, size_t at) const {
        if (cp == 0)
            fail(at, "a NUL (\\x00) in a string literal: generated text never holds a NUL (a token's text ends at one, as in llama.cpp), "
                     "so the literal could never match; remove it");
        if (cp >= 0xD800 && cp <= 0xDFFF)
            fail(at, fmt::format("U+{:04X} in a string literal is a UTF-16 surrogate, not a character: UTF-8 text cannot hold it (write a "
                                 "character past U+FFFF as one \\U escape, not as two \\u escapes)",
                                 cp));
    }

    // A class's ranges sorted and merged where they touch, for the matcher's binary search.
    static std::vector<std::pair<uint32_t, uint32_t>> sortedApart(std::vector<std::pair<uint32_t, uint32_t>> ranges) {
        std::sort(ranges.begin(), ranges.end());
        std::vector<std::pair<uint32_t, uint32_t>> merged;
        for (const auto& r : ranges) {
            if (!merged.empty() && r.first <= merged.back().second + 1) merged.back().second = std::max(merged.back().second, r.second);
            else merged.push_back(r);
        }
        return merged;
    }

    void parseCount(std::vector<GrammarElement>& seq, size_t symbolStart, const std::string& rule) {
        size_t start = pos_;
        char op = peek();
        ++pos_;
        uint32_t low = 0;
        std::optional<uint32_t> high;
        if (op == '*') {
        } else if (op == '+') {
            low = 1;
        } else if (op == '?') {
            high = 1;
        } else {  // {m}, {m,}, {m,n}
            auto number = [&]() -> std::optional<uint32_t> {
                skipSpace(false);
                if (!(peek() >= '0' && peek() <= '9')) return std::nullopt;
                uint64_t v = 0;
                while (peek() >= '0' && peek() <= '9') {
                    v = v * 10 + uint64_t(peek() - '0');
                    if (v > kMaxCount) fail(start, fmt::format("a repetition count above {}", kMaxCount));
                    ++pos_;
                }
                skipSpace(false);
                return uint32_t(v);
            };
            auto m = number();
            if (!m) fail(pos_, fmt::format("expected a number after '{{', found {}", found()));
            low = *m;
            if (peek() == ',') {
                ++pos_;
                high = number();
            } else {
                high = low;
            }
            if (peek() != '}') fail(pos_, fmt::format("expected '}}' to close the repetition, found {}", found()));
            ++pos_;
            if (high && *high < low) fail(start, fmt::format("repetition {{{},{}}}: the most is less than the least", low, *high));
        }
        if (symbolStart >= seq.size()) fail(start, fmt::format("'{}' repeats nothing: it must follow a literal, class, rule name or group", op));
        const GrammarSequence item(seq.begin() + std::ptrdiff_t(symbolStart), seq.end());
        seq.resize(symbolStart);
        if (uint64_t(low) * item.size() > kMaxElements) fail(start, fmt::format("the grammar grows past {} elements once its repetitions are written out", kMaxElements));
        for (uint32_t i = 0; i < low; ++i) seq.insert(seq.end(), item.begin(), item.end());
        int tail = -1;
        if (!high) {  // star ::= item star | (empty)
            tail = newRule(rule, {});
            GrammarSequence loop = item;
            loop.push_back({.kind = GrammarElement::Kind::RuleRef, .rule = tail});
            grammar_.rules[size_t(tail)].alternatives = {loop, {}};
            countElements(grammar_.rules[size_t(tail)].alternatives);
        } else {  // n - m optional items, nested: opt_k ::= item opt_{k-1} | (empty)
            for (uint32_t i = low; i < *high; ++i) {
                GrammarSequence more = item;
                if (tail >= 0) more.push_back({.kind = GrammarElement::Kind::RuleRef, .rule = tail});
                tail = newRule(rule, {more, {}});
            }
        }
        if (tail >= 0) seq.push_back({.kind = GrammarElement::Kind::RuleRef, .rule = tail});
        countElements({seq});
    }

    GrammarSequence parseSequence(const std::string& rule, int depth) {
        GrammarSequence seq;
        size_t symbolStart = 0;
        bool haveSymbol = false;
        while (!atEnd()) {
            char c = peek();
            size_t start = pos_;
            if (c == '"') {
                ++pos_;
                symbolStart = seq.size();
                while (peek() != '"') {
                    if (atEnd() || peek() == '\n' || peek() == '\r') fail(start, "unterminated string literal (no closing '\"' on its line)");
                    const size_t at = pos_;
                    const uint32_t cp = parseChar();
                    requireText(cp, at);
                    seq.push_back({.ranges = {{cp, cp}}});
                }
                ++pos_;
                haveSymbol = seq.size() > symbolStart;
                if (!haveSymbol) symbolStart = seq.size();  // "" matches the empty string; nothing to repeat
            } else if (c == '[') {
                ++pos_;
                GrammarElement e;
                if (peek() == '^') {
                    e.negated = true;
                    ++pos_;
                }
                while (peek() != ']') {
                    if (atEnd() || peek() == '\n' || peek() == '\r') fail(start, "unterminated character class (no closing ']' on its line)");
                    size_t at = pos_;
                    uint32_t first = parseChar();
                    uint32_t last = first;
                    if (peek() == '-' && peek(1) != ']' && pos_ + 1 < text_.size()) {
                        ++pos_;
                        if (atEnd() || peek() == '\n' || peek() == '\r') fail(start, "unterminated character class (no closing ']' on its line)");
                        last = parseChar();
                        if (last < first) fail(at, fmt::format("the range {}-{} is empty: its end comes before its start", codePointText(first), codePointText(last)));
                    }
                    e.ranges.push_back({first, last});
                }
                ++pos_;
                e.ranges = sortedApart(std::move(e.ranges));
                if (!e.matchesTextIn(0, 0x10FFFF))
                    fail(start, fmt::format("the character class {} matches no character of text (U+0001 to U+10FFFF but the surrogates "
                                            "U+D800-U+DFFF; never NUL): nothing could ever follow it; list the characters it should match",
                                            text_.substr(start, pos_ - start)));
                symbolStart = seq.size();
                seq.push_back(std::move(e));
                haveSymbol = true;
            } else if (c == '.') {
                ++pos_;
                symbolStart = seq.size();
                seq.push_back({.negated = true});  // no ranges, negated: any character
                haveSymbol = true;
            } else if (isWordChar(c)) {
                std::string name = parseName();
                references_.emplace(name, start);
                symbolStart = seq.size();
                seq.push_back({.kind = GrammarElement::Kind::RuleRef, .rule = ruleFor(name)});
                haveSymbol = true;
            } else if (c == '(') {
                if (depth >= kMaxNesting) fail(start, fmt::format("groups nest deeper than {}", kMaxNesting));
                ++pos_;
                skipSpace(true);
                auto alternatives = parseAlternatives(rule, depth + 1);
                if (peek() != ')') fail(pos_, fmt::format("expected ')' to close the group opened at {}, found {}", where(start), found()));
                ++pos_;
                symbolStart = seq.size();
                seq.push_back({.kind = GrammarElement::Kind::RuleRef, .rule = newRule(rule, std::move(alternatives))});
                haveSymbol = true;
            } else if (c == '*' || c == '+' || c == '?' || c == '{') {
                if (!haveSymbol) fail(start, fmt::format("'{}' repeats nothing: it must follow a literal, class, rule name or group", c));
                parseCount(seq, symbolStart, rule);
                haveSymbol = false;  // x** is refused as llama.cpp refuses it
            } else if (c == '<') {
                fail(start, "token references (<[id]> or <name>) are not supported here: write the token's text as a string literal");
            } else {
                break;
            }
            skipSpace(depth > 0);
        }
        return seq;
    }

    std::string where(size_t offset) const {
        int line = 1, column = 1;
        for (size_t i = 0; i < offset; ++i) {
            if (text_[i] == '\n') ++line, column = 1;
            else if ((uint8_t(text_[i]) & 0xC0) != 0x80) ++column;
        }
        return fmt::format("{}:{}", line, column);
    }

    // The rules with an alternative whose every element is `found` (given the rules found so far),
    // to a fixed point: the rules that can match nothing, or that can end at all.
    template <class Found>
    std::vector<bool> rulesWithAlternativeOf(Found found) const {
        const auto& rules = grammar_.rules;
        std::vector<bool> rulesFound(rules.size(), false);
        for (bool changed = true; changed;) {
            changed = false;
            for (size_t r = 0; r < rules.size(); ++r) {
                if (rulesFound[r]) continue;
                rulesFound[r] = std::any_of(rules[r].alternatives.begin(), rules[r].alternatives.end(), [&](const GrammarSequence& seq) {
                    return std::all_of(seq.begin(), seq.end(), [&](const GrammarElement& e) { return found(e, rulesFound); });
                });
                changed = changed || rulesFound[r];
            }
        }
        return rulesFound;
    }

    std::string definedAt(std::string_view userRule) const {
        const auto at = defined_.find(std::string(userRule));
        return where(at != defined_.end() ? at->second : 0);
    }

    // A rule every alternative of which needs a rule that never ends (x ::= "a" x) matches no text:
    // text under it could never be a sentence, and generation would run on to its token limit.
    void checkEveryRuleEnds() const {
        const auto& rules = grammar_.rules;
        const std::vector<bool> ends = rulesWithAlternativeOf(
            [](const GrammarElement& e, const std::vector<bool>& found) { return e.kind == GrammarElement::Kind::Chars || found[size_t(e.rule)]; });
        const auto neverEnds = [&](int r) { return !ends[size_t(r)]; };
        for (int r0 = 0; r0 < int(rules.size()); ++r0) {
            if (!neverEnds(r0)) continue;
            // Follow a rule it needs that never ends until one comes again: the loop to break.
            std::vector<int> path{r0};
            std::vector<bool> onPath(rules.size(), false);
            onPath[size_t(r0)] = true;
            for (;;) {
                int next = -1;
                for (const auto& seq : rules[size_t(path.back())].alternatives)
                    for (const auto& e : seq)
                        if (next < 0 && e.kind == GrammarElement::Kind::RuleRef && neverEnds(e.rule)) next = e.rule;
                path.push_back(next);
                if (onPath[size_t(next)]) break;
                onPath[size_t(next)] = true;
            }
            std::vector<std::string_view> names;
            for (size_t i = 0; i < path.size(); ++i) {
                const std::string_view name = grammar_.userRuleName(path[i]);
                if (names.empty() || names.back() != name || i + 1 == path.size()) names.push_back(name);
            }
            const std::string_view loop = names.back();
            throw GrammarError(fmt::format("{}:{}: rule {}: it can match no text: each of its alternatives needs a rule that never ends ({}): "
                                           "give {} an alternative that ends, as in x ::= \"a\" x | \"a\"",
                                           source_, definedAt(names.front()), names.front(), fmt::join(names, " -> "), loop));
        }
    }

    // A rule that reaches itself through elements that can all match nothing would make the
    // matcher's stacks grow without consuming a character: refused, as llama.cpp refuses it.
    void checkLeftRecursion() const {
        const auto& rules = grammar_.rules;
        const std::vector<bool> nullable =
            rulesWithAlternativeOf([](const GrammarElement& e, const std::vector<bool>& found) { return e.kind == GrammarElement::Kind::RuleRef && found[size_t(e.rule)]; });
        // Edges: the rules an alternative can start with.
        std::vector<std::vector<int>> starts(rules.size());
        for (size_t r = 0; r < rules.size(); ++r)
            for (const auto& seq : rules[r].alternatives)
                for (const auto& e : seq) {
                    if (e.kind != GrammarElement::Kind::RuleRef) break;
                    starts[r].push_back(e.rule);
                    if (!nullable[size_t(e.rule)]) break;
                }
        // Depth-first search for a cycle, iterative (a long chain of rules must not exhaust the stack).
        std::vector<int> state(rules.size(), 0);  // 0 unseen, 1 on the path, 2 done
        for (size_t r0 = 0; r0 < rules.size(); ++r0) {
            if (state[r0]) continue;
            std::vector<std::pair<int, size_t>> path{{int(r0), 0}};
            state[r0] = 1;
            while (!path.empty()) {
                auto& [r, next] = path.back();
                if (next < starts[size_t(r)].size()) {
                    int to = starts[size_t(r)][next++];
                    if (state[size_t(to)] == 1) {
                        std::string cycle;
                        bool on = false;
                        for (const auto& [p, n] : path) {
                            if (p == to) on = true;
                            if (on) cycle += rules[size_t(p)].name + " -> ";
                        }
                        cycle += rules[size_t(to)].name;
                        const std::string_view named = grammar_.userRuleName(to);
                        throw GrammarError(fmt::format("{}:{}: rule {}: left recursion ({}): the rule can reach itself before matching a "
                                                       "character; rewrite it to repeat on the right (x ::= y x | y) or with * and +",
                                                       source_, definedAt(named), named, cycle));
                    }
                    if (state[size_t(to)] == 0) {
                        state[size_t(to)] = 1;
                        path.push_back({to, 0});
                    }
                } else {
                    state[size_t(r)] = 2;
                    path.pop_back();
                }
            }
        }
    }
    std::string_view text_;
    std::string_view source_;
    size_t pos_ = 0;
    Grammar grammar_;
    std::map<std::string, size_t> defined_;     // rule name -> where its definition starts
    std::map<std::string, size_t> references_;  // rule name -> its first use
    int generated_ = 0;
    size_t elements_ = 0;
};

}  // namespace

Grammar parseGrammar(std::string_view text, std::string_view source) { return Parser(text, source).parse(); }

std::string Grammar::describe() const {
    std::string out;
    for (const auto& rule : rules) {
        out += rule.name + " ::=";
        for (size_t a = 0; a < rule.alternatives.size(); ++a) {
            if (a) out += " |";
            for (const auto& e : rule.alternatives[a]) {
                if (e.kind == GrammarElement::Kind::RuleRef) {
                    out += " " + rules[size_t(e.rule)].name;
                } else if (e.negated && e.ranges.empty()) {
                    out += " .";
                } else if (!e.negated && e.ranges.size() == 1 && e.ranges[0].first == e.ranges[0].second) {
                    out += " \"" + codePointText(e.ranges[0].first) + "\"";
                } else {
                    out += e.negated ? " [^" : " [";
                    for (const auto& [a0, b0] : e.ranges) out += a0 == b0 ? codePointText(a0) : codePointText(a0) + "-" + codePointText(b0);
                    out += "]";
                }
            }
            if (rule.alternatives[a].empty()) out += " \"\"";
        }
        out += "\n";
    }
    return out;
}

}  // namespace llama
