#pragma once
// Runs a Grammar over text as llama.cpp's grammar sampler does: a set of stacks, each a path
// through the rules whose top is the next character element to match (an empty stack: the
// grammar may end here). A character moves every stack whose top matches it; a stack that reaches
// a rule reference opens one stack per alternative of that rule. Text is taken in bytes, so a
// token may end inside a UTF-8 character: the bytes so far are kept, and such a token is allowed
// when some stack can match a character that starts with them.
//
// GrammarConstraint applies it to a vocabulary: before the sampler chain, every token whose text
// cannot continue the grammar gets -inf (stop tokens are allowed only where the grammar may end,
// tokens with no text never); after sampling, the chosen token moves the stacks.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "generate/grammar.h"

namespace llama {

class GrammarMatcher {
public:
    explicit GrammarMatcher(std::shared_ptr<const Grammar> grammar);

    // Whether these bytes, after the text accepted so far, are the start of a sentence of the grammar.
    bool allows(std::string_view bytes) const;
    // Takes the bytes (throws std::invalid_argument when they are not allowed).
    void accept(std::string_view bytes);
    bool canEnd() const;   // the text so far is a whole sentence (some stack is empty)
    bool mustEnd() const;  // and nothing may follow it (every stack is empty)
    size_t stackCount() const { return stacks_.size(); }
    // The first-character steps of the stacks are kept between allows() calls of one sampling
    // step; accept() clears them.

    struct Position {
        int rule, alternative, index;
        auto operator<=>(const Position&) const = default;
    };
    using Stack = std::vector<Position>;
    // A UTF-8 character begun but not finished: its bits so far and how many bytes it still needs.
    struct Partial {
        uint32_t value = 0;
        int remaining = 0;
    };

private:
    const GrammarElement& element(const Position& p) const;
    // `work` counts the stack positions copied while following one character, across calls; past
    // a bound the grammar is refused as too ambiguous.
    void expand(Stack stack, std::vector<Stack>& out, size_t& work) const;
    std::vector<Stack> step(const std::vector<Stack>& stacks, uint32_t cp) const;
    bool partialFits(const std::vector<Stack>& stacks, const Partial& partial) const;

    std::shared_ptr<const Grammar> grammar_;
    std::vector<Stack> stacks_;
    Partial partial_;
    mutable std::map<uint32_t, std::vector<Stack>> firstStep_;
};

class GrammarConstraint {
public:
    // tokenTexts: each id's bytes (special tokens their text, as llama.cpp's pieces); stopIds end a run.
    GrammarConstraint(std::shared_ptr<const Grammar> grammar, std::vector<std::string> tokenTexts, std::vector<int32_t> stopIds);

    // Sets the logits of the tokens the grammar does not allow to -inf; returns how many it allows.
    // logits: one per id (ids past the vocabulary are never allowed). Throws std::runtime_error
    // when it allows none: the grammar cannot go on with this vocabulary.
    int mask(float* logits, int64_t count) const;
    // Whether the grammar allows token `id` next (what mask() asks of every id).
    bool allows(int32_t id) const;
    void accept(int32_t token);
    int steps() const { return steps_; }
    int64_t tokensChecked() const { return checked_; }  // allows() calls so far, mask()'s included

private:
    GrammarMatcher matcher_;
    std::vector<std::string> texts_;
    std::vector<int32_t> stops_;
    int steps_ = 0;
    mutable int64_t checked_ = 0;
};

}  // namespace llama
