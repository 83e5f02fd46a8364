#pragma once
// A grammar in llama.cpp's GBNF: `name ::= alternatives`, one rule per line (a rule continues on
// the next lines inside parentheses), `|` between alternatives, sequences of string literals
// ("..."), character classes ([a-z], [^"\\], escapes \x.. \u.... \U........ \t \r \n \\ \" \[ \]),
// `.` for any character, rule names, groups ( ), and the repetitions *, +, ? and {m}, {m,}, {m,n};
// `#` starts a comment. The rule named root is the language.
//
// Text is UTF-8 of the characters U+0001 to U+10FFFF but the surrogates (U+D800-U+DFFF): no NUL,
// which ends a token's text in llama.cpp. What llama.cpp's parser takes and this one refuses,
// naming the construct: token references (<[id]>, <name>), a rule defined twice (llama.cpp keeps
// the last silently), a character class that matches no character of text ([], [^\x00-\U0010FFFF],
// [\x00]), a literal holding a NUL or a surrogate, and a rule that can match no text (each of its
// alternatives needs a rule that never ends, as in x ::= "a" x). Refused as llama.cpp
// refuses them: undefined rules, a missing root, left recursion (a rule that can reach itself
// before consuming a character, which its stack machine cannot run).
//
// Parsed into rules of alternatives of elements; a group or repetition becomes a rule of its own
// (named after its parent, "value_3"), as llama.cpp does, so the matcher only knows characters
// and rule references.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llama {

// Thrown for a grammar that cannot be used: "<source>:<line>:<column>: <what>" (1-based), or
// "<source>: rule <name>: <what>" for errors that belong to a rule rather than a place.
class GrammarError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

struct GrammarElement {
    enum class Kind { Chars, RuleRef };
    Kind kind = Kind::Chars;
    // Chars: inclusive code point ranges, sorted and apart; `negated` matches any code point
    // outside them.
    std::vector<std::pair<uint32_t, uint32_t>> ranges;
    bool negated = false;
    int rule = -1;  // RuleRef: index into Grammar::rules

    bool matches(uint32_t cp) const;
    // Whether some character of text in [low, high] is matched (for a token ending in part of a
    // character; over all of Unicode, whether the element can match anything at all).
    bool matchesTextIn(uint32_t low, uint32_t high) const;
};

using GrammarSequence = std::vector<GrammarElement>;

struct GrammarRule {
    std::string name;
    std::vector<GrammarSequence> alternatives;  // an empty sequence matches the empty string
};

struct Grammar {
    std::vector<GrammarRule> rules;
    int root = -1;
    int ruleIndex(std::string_view name) const;  // -1 when there is none
    // The rule as the grammar's text names it: a group's or repetition's rule ("value_3") is its
    // parent's ("value"; names in the text cannot hold '_').
    std::string_view userRuleName(int rule) const;
    // The rules as GBNF again, one line each, the parser's own rules included (for --step and docs).
    std::string describe() const;
};

// Parses GBNF. `source` names the text in errors (a file name, "--grammar-text", "--json").
Grammar parseGrammar(std::string_view text, std::string_view source);

}  // namespace llama
