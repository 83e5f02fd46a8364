#pragma once
// Runs a Grammar over text as llama.cpp's grammar sampler does: a set of stacks, each a path
// through the rules whose top is the next character element to match (an empty stack: the
// grammar may end here). A character moves every stack whose top matches it; a stack that reaches
// a rule reference opens one stack per alternative of that rule. Text is taken in bytes, so a
// token may end inside a UTF-8 character: the bytes so far are kept, and such a token is allowed
// when some stack can match a character that starts with them. Only well-formed UTF-8 without NUL
// is text: no element matches an overlong form, a surrogate, a code point past U+10FFFF or NUL.
//
// Unlike llama.cpp, stacks are interned: a stack is the id of its top node (a position and the
// stack below), so equal stacks are one id, a set of them is deduplicated by id, and moving a
// stack by a character costs a few hash lookups, not a copy of the stack.
//
// The bound on work: between two accepted tokens (one sampling step, however many tokens it
// checks) the matcher does at most kMaxStepWork stack operations, each a hash lookup or a binary
// search in one element's ranges, and holds at most kMaxStacks stacks; a grammar that needs more is
// refused at that step, naming the rule that holds the text in the most ways.
//
// GrammarConstraint applies it to a vocabulary: before the sampler chain, every token whose text
// cannot continue the grammar gets -inf (stop tokens are allowed only where the grammar may end,
// tokens with no text never); after sampling, the chosen token moves the stacks.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "generate/grammar.h"

namespace llama {

class GrammarMatcher {
public:
    static constexpr size_t kMaxStacks = 4096;
    static constexpr size_t kMaxStepWork = size_t(1) << 25;

    explicit GrammarMatcher(std::shared_ptr<const Grammar> grammar);

    // Whether these bytes, after the text accepted so far, are the start of a sentence of the grammar.
    bool allows(std::string_view bytes) const;
    // Takes the bytes (throws std::invalid_argument when they are not allowed).
    void accept(std::string_view bytes);
    bool canEnd() const;   // the text so far is a whole sentence (some stack is empty)
    bool mustEnd() const;  // and nothing may follow it (every stack is empty)
    size_t stackCount() const { return stacks_.size(); }
    size_t stepWork() const { return work_; }  // stack operations since the last accept()
    // The first-character steps of the stacks are kept between allows() calls of one sampling
    // step; accept() clears them.

    // A UTF-8 character begun but not finished: its bits so far, how many bytes it still needs,
    // and the code points it can still become (in its shortest form, at most U+10FFFF).
    struct Partial {
        uint32_t value = 0;
        int remaining = 0;
        uint32_t low = 0, high = 0;
    };

private:
    using StackId = uint32_t;  // 0: the empty stack
    struct Node {
        uint32_t position;  // index into positions_
        StackId below;
    };
    struct PositionInfo {
        const GrammarElement* element;
        bool last;  // the last element of its alternative
        int rule;
    };

    StackId intern(uint32_t position, StackId below) const;
    StackId afterTop(StackId s) const;  // the stack once its top element is matched
    // Opens rule references at the tops of `pending` until every top is a character element or the
    // stack is empty; each distinct stack is opened once.
    std::vector<StackId> close(std::vector<StackId> pending) const;
    std::vector<StackId> step(const std::vector<StackId>& stacks, uint32_t cp) const;
    bool partialFits(const std::vector<StackId>& stacks, const Partial& partial) const;
    void charge(size_t units) const;
    void forgetFrom(size_t firstNode) const;  // removes the nodes made since (one allows() call's)
    void keepOnly(std::vector<StackId>& stacks);  // rebuilds the node table from these stacks
    std::string busiestRule() const;

    std::shared_ptr<const Grammar> grammar_;
    std::vector<PositionInfo> positions_;
    std::vector<std::vector<uint32_t>> firstPosition_;  // [rule][alternative]
    mutable std::vector<Node> nodes_;
    mutable std::unordered_map<uint64_t, StackId> ids_;
    mutable std::vector<uint32_t> seenIn_;  // per node: the close() call that last opened it
    mutable uint32_t closes_ = 0;
    mutable size_t work_ = 0;
    std::vector<StackId> stacks_;
    Partial partial_;
    mutable std::map<uint32_t, std::vector<StackId>> firstStep_;
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
    size_t stepWork() const { return matcher_.stepWork(); }

private:
    GrammarMatcher matcher_;
    std::vector<std::string> texts_;
    std::vector<int32_t> stops_;
    int steps_ = 0;
    mutable int64_t checked_ = 0;
};

}  // namespace llama
