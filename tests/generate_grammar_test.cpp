// GBNF grammars: the parser (what it builds, what it refuses and where), the stack matcher over
// text and bytes, and the token mask over a vocabulary.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "generate/grammar.h"
#include "generate/grammar_matcher.h"
#include "generate/json_grammar.h"
#include "generate/sampler.h"

using namespace llama;

namespace {
std::shared_ptr<const Grammar> grammarOf(const std::string& text) { return std::make_shared<const Grammar>(parseGrammar(text, "test.gbnf")); }

// Whether the whole text is a sentence of the grammar, fed in one piece per byte.
bool acceptsBytewise(const std::string& grammar, const std::string& text) {
    GrammarMatcher m(grammarOf(grammar));
    for (char c : text) {
        if (!m.allows(std::string(1, c))) return false;
        m.accept(std::string(1, c));
    }
    return m.canEnd();
}

std::string parseError(const std::string& text) {
    try {
        parseGrammar(text, "g.gbnf");
    } catch (const GrammarError& e) {
        return e.what();
    }
    return "(parsed)";
}
}  // namespace

TEST_CASE("grammar: rules, alternatives, groups and repetitions become rules of characters and references", "[generate][grammar]") {
    const Grammar g = parseGrammar("root ::= \"ab\" [x-z]* | (\"c\" | d)? d{2,3}\nd ::= [^0-9] .\n", "g");
    CHECK(g.rules[size_t(g.root)].name == "root");
    CHECK(g.describe() ==
          "root ::= \"a\" \"b\" root_1 | root_3 d d root_4\n"
          "root_1 ::= [x-z] root_1 | \"\"\n"
          "d ::= [^0-9] .\n"
          "root_2 ::= \"c\" | d\n"
          "root_3 ::= root_2 | \"\"\n"
          "root_4 ::= d | \"\"\n");
}

TEST_CASE("grammar: the matcher takes exactly the sentences of the grammar", "[generate][grammar]") {
    const std::string g = "root ::= \"(\" item (\",\" item)* \")\"\nitem ::= [0-9]+ | \"x\"{2}";
    CHECK(acceptsBytewise(g, "(1)"));
    CHECK(acceptsBytewise(g, "(12,xx,3)"));
    CHECK_FALSE(acceptsBytewise(g, "()"));
    CHECK_FALSE(acceptsBytewise(g, "(x)"));
    CHECK_FALSE(acceptsBytewise(g, "(1,)"));
    CHECK_FALSE(acceptsBytewise(g, "(1"));  // a prefix, not a sentence
    GrammarMatcher m(grammarOf(g));
    CHECK(m.allows("(12,x"));
    CHECK_FALSE(m.allows("(12,x)"));
    CHECK_FALSE(m.allows(")"));
}

TEST_CASE("grammar: a repeated rule that can match nothing is matched without trying each of its paths", "[generate][grammar]") {
    // word{11,24} where a word may be empty reaches each stack along some 3^24 paths; the fuzzer
    // found it taking the matcher past its 10 s limit (tests/fuzz/regressions/grammar).
    const std::string g = "root ::= word{11,24} \".\"\nword ::= \" \" [A-Za-]+ | | \",\"?\n";
    CHECK(acceptsBytewise(g, "."));  // 24 empty words
    CHECK(acceptsBytewise(g, " IN THE BEGINNING, GOD CREATED."));  // [A-Za-] is A to Z, a and -
    CHECK_FALSE(acceptsBytewise(g, " IN THE BEGINNING GOD CREATED"));  // no full stop
    CHECK_FALSE(acceptsBytewise(g, " In."));                           // n is not in [A-Za-]
    CHECK_FALSE(acceptsBytewise(g, "IN."));                            // a word starts with a space
}

TEST_CASE("grammar: JSON objects pass --json's grammar, other text does not", "[generate][grammar]") {
    CHECK(acceptsBytewise(kJsonGrammar, R"({"a": [1, -2.5e+3, "x\u00e9\n"], "b": {"c": null, "d": true}})"));
    CHECK(acceptsBytewise(kJsonGrammar, "{\n  \"caf\xC3\xA9\": false}"));  // UTF-8 inside strings
    CHECK_FALSE(acceptsBytewise(kJsonGrammar, R"({"a": 01})"));
    CHECK_FALSE(acceptsBytewise(kJsonGrammar, R"({"a" 1})"));
    CHECK_FALSE(acceptsBytewise(kJsonGrammar, R"([1, 2])"));  // --json asks for an object
    CHECK_FALSE(acceptsBytewise(kJsonGrammar, "{\"a\": \"tab\there\"}"));
}

TEST_CASE("grammar: a token may end inside a UTF-8 character that the grammar can finish", "[generate][grammar]") {
    // "é" is C3 A9; "ж" is D0 B6.
    GrammarMatcher m(grammarOf("root ::= [a-z\xC3\xA0-\xC3\xBF]+"));
    CHECK(m.allows("\xC3"));
    CHECK_FALSE(m.allows("\xD0"));      // every character starting D0 is outside the class
    CHECK_FALSE(m.allows("\xA9"));      // a continuation byte cannot start a character
    CHECK_FALSE(m.allows("\xC1\x81"));  // overlong: "A" in two bytes is no character
    m.accept("ab\xC3");
    CHECK_FALSE(m.canEnd());  // half a character
    CHECK(m.allows("\xA9"));
    CHECK_FALSE(m.allows("x"));
    m.accept("\xA9");
    CHECK(m.canEnd());
}

TEST_CASE("grammar: the mask allows the tokens that continue it, and stop tokens where it may end", "[generate][grammar]") {
    const std::vector<std::string> vocab = {"a", "b", "ab", "ba", "", "<|end|>", "aab", std::string("\0a", 2)};
    GrammarConstraint c(grammarOf("root ::= \"a\" \"b\"?"), vocab, {5});
    std::vector<float> logits(vocab.size() + 1, 1.0f);  // one more logit than the vocabulary has tokens
    CHECK(c.mask(logits.data(), int64_t(logits.size())) == 2);
    for (size_t id = 0; id < logits.size(); ++id) CHECK(std::isinf(logits[id]) == !(id == 0 || id == 2));
    c.accept(0);  // "a": the grammar may end, or go on with "b"
    std::fill(logits.begin(), logits.end(), 1.0f);
    CHECK(c.mask(logits.data(), int64_t(logits.size())) == 2);
    CHECK(std::isfinite(logits[1]));
    CHECK(std::isfinite(logits[5]));
    c.accept(1);  // "ab": only the stop token
    std::fill(logits.begin(), logits.end(), 1.0f);
    CHECK(c.mask(logits.data(), int64_t(logits.size())) == 1);
    CHECK(std::isfinite(logits[5]));
}

TEST_CASE("grammar: a grammar no token can start is refused at the first step", "[generate][grammar][hostile]") {
    GrammarConstraint c(grammarOf("root ::= \"z\""), {"a", "b"}, {});
    std::vector<float> logits(2, 0.0f);
    CHECK_THROWS_WITH(c.mask(logits.data(), 2), Catch::Contains("allows no token") && Catch::Contains("first step"));
}

TEST_CASE("grammar: bad grammars are refused with the file, line and column", "[generate][grammar][hostile]") {
    CHECK(parseError("") == "g.gbnf: the grammar is empty: it has no rules (a grammar needs at least `root ::= ...`)");
    CHECK(parseError("  # only a comment\n") == parseError(""));
    CHECK(parseError("a ::= \"x\"") == "g.gbnf: the grammar has no rule named root (the rule generation starts from)");
    CHECK(parseError("root ::= \"x\" b\n") == "g.gbnf:1:14: undefined rule 'b'");
    CHECK_THAT(parseError("root ::= x\nx ::= x \"a\" | \"b\""), Catch::StartsWith("g.gbnf:2:1: rule x: left recursion (x -> x)"));
    CHECK_THAT(parseError("root ::= e root \"a\" | \"b\"\ne ::= \"\""), Catch::StartsWith("g.gbnf:1:1: rule root: left recursion"));
    CHECK(parseError("root ::= \"abc\n") == "g.gbnf:1:10: unterminated string literal (no closing '\"' on its line)");
    CHECK(parseError("root ::= [a-\n") == "g.gbnf:1:10: unterminated character class (no closing ']' on its line)");
    CHECK(parseError("root ::= [z-a]") == "g.gbnf:1:11: the range z-a is empty: its end comes before its start");
    CHECK(parseError("root ::= \"\\q\"") == "g.gbnf:1:11: unknown escape '\\q' (known: \\x.. \\u.... \\U........ \\t \\r \\n \\\\ \\\" \\[ \\])");
    CHECK(parseError("root ::= \"a\"\nroot ::= \"b\"") == "g.gbnf:2:1: rule 'root' is defined twice");
    CHECK(parseError("root = \"a\"") == "g.gbnf:1:6: expected '::=' after the rule name 'root', found '='");
    CHECK(parseError("root ::= * \"a\"") == "g.gbnf:1:10: '*' repeats nothing: it must follow a literal, class, rule name or group");
    CHECK(parseError("root ::= \"a\"{2,1}") == "g.gbnf:1:13: repetition {2,1}: the most is less than the least");
    CHECK(parseError("root ::= (\"a\"") == "g.gbnf:1:14: expected ')' to close the group opened at 1:10, found the end of the grammar");
    CHECK(parseError("root ::= \"a\" )") == "g.gbnf:1:14: expected the end of rule 'root' (a new line), found ')'");
    CHECK_THAT(parseError("root ::= <[42]>"), Catch::StartsWith("g.gbnf:1:10: token references (<[id]> or <name>) are not supported"));
    CHECK(parseError("root ::= \"\\U00110000\"") == "g.gbnf:1:11: U+110000 is beyond Unicode's last code point");
    CHECK_THAT(parseError("root ::= \"abcdefghij\"{10000} \"abcdefghij\"{10000} \"abcdefghij\"{10000}"), Catch::Contains("grows past 200000 elements"));
    CHECK_THAT(parseError("root ::= " + std::string(100, '(')), Catch::Contains("groups nest deeper than 64"));
}

TEST_CASE("grammar: an element that can match no character of text, or a rule that can match no text, is refused saying why", "[generate][grammar][hostile]") {
    const std::string noCharacter = " matches no character of text (U+0001 to U+10FFFF but the surrogates U+D800-U+DFFF; never NUL): nothing "
                                    "could ever follow it; list the characters it should match";
    const std::string nul = "a NUL (\\x00) in a string literal: generated text never holds a NUL (a token's text ends at one, as in "
                            "llama.cpp), so the literal could never match; remove it";
    const std::string neverEnds = "give x an alternative that ends, as in x ::= \"a\" x | \"a\"";
    const std::pair<std::string, std::string> refused[] = {
        {"root ::= []", "g.gbnf:1:10: the character class []" + noCharacter},
        {"root ::= \"a\" [^\\x00-\\U0010FFFF]", "g.gbnf:1:14: the character class [^\\x00-\\U0010FFFF]" + noCharacter},
        {"root ::= [^\\x01-\\uD7FF\\uE000-\\U0010FFFF]", "g.gbnf:1:10: the character class [^\\x01-\\uD7FF\\uE000-\\U0010FFFF]" + noCharacter},
        {"root ::= [\\x00]", "g.gbnf:1:10: the character class [\\x00]" + noCharacter},
        {"root ::= [\\uD800-\\uDFFF]+", "g.gbnf:1:10: the character class [\\uD800-\\uDFFF]" + noCharacter},
        {"root ::= \"a\\x00\"", "g.gbnf:1:12: " + nul},
        {"root ::= \"\\x00\"*", "g.gbnf:1:11: " + nul},
        {"root ::= \"\\uD83D\\uDE00\"", "g.gbnf:1:11: U+D83D in a string literal is a UTF-16 surrogate, not a character: UTF-8 text cannot hold it "
                                      "(write a character past U+FFFF as one \\U escape, not as two \\u escapes)"},
        {"root ::= x\nx ::= \"a\" x", "g.gbnf:1:1: rule root: it can match no text: each of its alternatives needs a rule that never ends "
                                    "(root -> x -> x): " + neverEnds},
        {"root ::= \"a\" | x\nx ::= (\"b\" x)+", "g.gbnf:2:1: rule x: it can match no text: each of its alternatives needs a rule that never "
                                               "ends (x -> x): " + neverEnds},
        {"root ::= (\"(\" root \")\")*  \"x\" root", "g.gbnf:1:1: rule root: it can match no text: each of its alternatives needs a rule that "
                                                  "never ends (root -> root): give root an alternative that ends, as in x ::= \"a\" x | \"a\""},
    };
    for (const auto& [grammar, message] : refused) {
        INFO(grammar);
        CHECK(parseError(grammar) == message);
    }
    // What stays: classes that match some character besides NUL or a surrogate, and rules that can end.
    for (const char* grammar : {"root ::= [\\x00-\\x7F]", "root ::= [^a]", "root ::= [\\uD7FF-\\uE000]", "root ::= \"a\" root | \"b\"", "root ::= ."}) {
        INFO(grammar);
        CHECK(parseError(grammar) == "(parsed)");
    }
}

TEST_CASE("grammar: bytes that form no character of text are never allowed, whatever the grammar matches", "[generate][grammar][hostile]") {
    // `.` and a class of everything match any character: still only text passes.
    for (const char* grammar : {"root ::= .*", "root ::= [\\x00-\\U0010FFFF]*", "root ::= [^a]*"}) {
        GrammarMatcher m(grammarOf(grammar));
        const std::string notText[] = {
            std::string(1, '\0'), "a" + std::string(1, '\0'),  // NUL
            "\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xE0\x9F", "\xF0\x80\x80\x80", "\xF0\x8F",  // overlong forms, whole or begun
            "\xED\xA0\x80", "\xED\xBF", "\xF4\x90\x80\x80", "\xF4\x90", "\xF5", "\xFF",              // surrogates, past U+10FFFF
            "\x80", "\xC3" "a",                                                                   // a continuation alone, a character cut
        };
        for (const std::string& bytes : notText) {
            INFO(grammar << ": " << Catch::Detail::stringify(bytes));
            CHECK_FALSE(m.allows(bytes));
        }
        for (const std::string bytes : {"\x01", "\xED\x9F\xBF", "\xEE\x80\x80", "\xF4\x8F\xBF\xBF", "\xE0\xA0", "\xED", "\xF4\x8F"}) {
            INFO(grammar << ": " << Catch::Detail::stringify(bytes));
            CHECK(m.allows(bytes));
        }
    }
}

namespace {
// `count` tokens of `length` printable characters each.
std::vector<std::string> printableTokens(size_t count, size_t length) {
    std::vector<std::string> tokens;
    for (size_t i = 0; i < count; ++i) {
        std::string t;
        for (size_t k = 0, v = i; k < length; ++k, v /= 95) t += char(' ' + v % 95);
        tokens.push_back(t);
    }
    return tokens;
}
}  // namespace

TEST_CASE("grammar: the matcher's work per token is bounded, and a grammar past the bound is refused naming its rule", "[generate][grammar][hostile]") {
    // The issue's grammar: text read as 60 parts of 1 to 3 characters in very many ways.
    const auto rep60 = grammarOf("root ::= x{0,60}\nx ::= [ -~] | [ -~][ -~] | [ -~][ -~][ -~]");
    GrammarConstraint c(rep60, printableTokens(4096, 4), {});
    for (int step = 0; step < 20; ++step) c.accept(step);  // 80 characters: about as many ways as it gets
    std::vector<float> logits(4096, 0.0f);
    CHECK(c.mask(logits.data(), 4096) == 4096);
    CHECK(c.stepWork() < GrammarMatcher::kMaxStepWork);
    // Parts of 1 to 4 characters, 400 of them: past 200 characters, checking 4096 tokens of 8
    // characters would take more than the bound.
    GrammarConstraint past(grammarOf("root ::= x{0,400}\nx ::= [ -~] | [ -~]{2} | [ -~]{3} | [ -~]{4}"), printableTokens(4096, 8), {});
    for (int step = 0; step < 25; ++step) past.accept(step);
    CHECK_THROWS_WITH(past.mask(logits.data(), 4096),
                      Catch::StartsWith(fmt::format("rule root: checking the next token needs more than {} steps of the grammar's matcher",
                                                    GrammarMatcher::kMaxStepWork)));
}

TEST_CASE("grammar: greedy asks about its argmax first and masks the vocabulary only when the grammar refuses it", "[generate][grammar]") {
    std::vector<std::string> vocab{"a", "b"};
    for (int i = 0; vocab.size() < 1000; ++i) vocab.push_back("x" + std::to_string(i));
    const auto grammar = grammarOf("root ::= (\"a\" | \"b\")+");
    const int64_t n = int64_t(vocab.size());
    auto checkFirst = std::make_shared<GrammarConstraint>(grammar, vocab, std::vector<int32_t>{});
    auto maskFirst = std::make_shared<GrammarConstraint>(grammar, vocab, std::vector<int32_t>{});
    Sampler lazy(SamplingSettings{}), full(SamplingSettings{});
    lazy.constrain(checkFirst);
    full.constrain(maskFirst);
    full.countAllowed(true);  // as for an observer: the whole vocabulary every step
    // Step 1: "b" (id 1) leads and is allowed. Step 2: "x7" leads, refused; "a" is the best allowed.
    std::vector<std::vector<float>> steps(2, std::vector<float>(size_t(n), 0.0f));
    steps[0][1] = 3.0f;
    steps[1][9] = 5.0f, steps[1][0] = 2.0f, steps[1][1] = 1.0f;
    const std::vector<int32_t> expected{1, 0};
    const int64_t checksPerStep[] = {1, 1 + n};
    int64_t before = 0;
    for (size_t s = 0; s < steps.size(); ++s) {
        INFO("step " << s + 1);
        Tensor logits({n}, DType::F32);
        std::copy(steps[s].begin(), steps[s].end(), logits.mutableData<float>());
        CHECK(lazy.choose(lazy.penalize(logits)) == expected[s]);
        CHECK(full.choose(full.penalize(logits)) == expected[s]);
        CHECK(checkFirst->tokensChecked() - before == checksPerStep[s]);
        before = checkFirst->tokensChecked();
    }
    CHECK(maskFirst->tokensChecked() == 2 * n);
}
