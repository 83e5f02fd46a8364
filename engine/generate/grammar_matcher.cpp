#include "generate/grammar_matcher.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

namespace llama {

namespace {

constexpr size_t kMaxStacks = 4096;
// Stack positions copied while following one character (or opening the start): a rule that can
// match nothing, repeated hundreds of times, makes stacks hundreds deep and reaches each of them
// from every other; past this the grammar is refused rather than taking seconds a character.
constexpr size_t kMaxWork = size_t(1) << 20;

struct Decoded {
    std::vector<uint32_t> codePoints;
    GrammarMatcher::Partial partial;
    bool invalid = false;
};

// UTF-8 bytes after a partial character: the whole characters, and the one left unfinished.
Decoded decodeUtf8(std::string_view bytes, GrammarMatcher::Partial partial) {
    Decoded d;
    uint32_t value = partial.value;
    int remaining = partial.remaining;
    size_t i = 0;
    auto continuation = [&](uint8_t b) {
        if ((b & 0xC0) != 0x80) {
            d.invalid = true;
            return false;
        }
        value = (value << 6) | (b & 0x3F);
        --remaining;
        return true;
    };
    while (i < bytes.size() && remaining > 0)
        if (!continuation(uint8_t(bytes[i++]))) return d;
    if (partial.remaining > 0 && remaining == 0) d.codePoints.push_back(value);
    while (i < bytes.size()) {
        uint8_t b = uint8_t(bytes[i++]);
        remaining = b < 0x80 ? 0 : (b & 0xE0) == 0xC0 ? 1 : (b & 0xF0) == 0xE0 ? 2 : (b & 0xF8) == 0xF0 ? 3 : -1;
        if (remaining < 0) {
            d.invalid = true;
            return d;
        }
        value = b & (0x7F >> remaining);
        while (i < bytes.size() && remaining > 0)
            if (!continuation(uint8_t(bytes[i++]))) return d;
        if (remaining == 0) d.codePoints.push_back(value);
    }
    d.partial = {remaining > 0 ? value : 0, remaining};
    return d;
}

std::string tooAmbiguous() {
    return fmt::format("the grammar can read this text in more than {} ways at once: make its repetitions unambiguous (a repeated "
                       "part that can be empty, or two repetitions of the same characters side by side)",
                       kMaxStacks);
}

}  // namespace

GrammarMatcher::GrammarMatcher(std::shared_ptr<const Grammar> grammar) : grammar_(std::move(grammar)) {
    const GrammarRule& root = grammar_->rules[size_t(grammar_->root)];
    size_t work = 0;
    for (size_t a = 0; a < root.alternatives.size(); ++a)
        expand(root.alternatives[a].empty() ? Stack{} : Stack{{grammar_->root, int(a), 0}}, stacks_, work);
    std::sort(stacks_.begin(), stacks_.end());
    stacks_.erase(std::unique(stacks_.begin(), stacks_.end()), stacks_.end());
}

const GrammarElement& GrammarMatcher::element(const Position& p) const {
    return grammar_->rules[size_t(p.rule)].alternatives[size_t(p.alternative)][size_t(p.index)];
}

// Opens rule references at the top until every stack's top is a character element, or it is empty.
void GrammarMatcher::expand(Stack stack, std::vector<Stack>& out, size_t& work) const {
    // A repeated rule that can match nothing reaches the same stack along very many paths (about
    // 3^24 for word{11,24} where a word may be empty): past the first few, each stack is opened
    // once (a set for the few would cost every token's check more than the repeats do).
    constexpr size_t kUnrecordedPops = 32;
    std::set<Stack> opened;
    size_t pops = 0;
    std::vector<Stack> pending{std::move(stack)};
    while (!pending.empty()) {
        Stack s = std::move(pending.back());
        pending.pop_back();
        work += s.size() + 1;
        if (work > kMaxWork) throw std::invalid_argument(tooAmbiguous());
        if (++pops > kUnrecordedPops) {
            if (!opened.insert(s).second) continue;
            if (opened.size() > kMaxStacks) throw std::invalid_argument(tooAmbiguous());
        }
        if (s.empty() || element(s.back()).kind == GrammarElement::Kind::Chars) {
            out.push_back(std::move(s));
            continue;
        }
        const Position at = s.back();
        const int rule = element(at).rule;
        s.pop_back();
        if (size_t(at.index + 1) < grammar_->rules[size_t(at.rule)].alternatives[size_t(at.alternative)].size())
            s.push_back({at.rule, at.alternative, at.index + 1});
        const auto& alternatives = grammar_->rules[size_t(rule)].alternatives;
        for (size_t a = 0; a < alternatives.size(); ++a) {
            Stack n = s;
            if (!alternatives[a].empty()) n.push_back({rule, int(a), 0});
            pending.push_back(std::move(n));
        }
    }
}

std::vector<GrammarMatcher::Stack> GrammarMatcher::step(const std::vector<Stack>& stacks, uint32_t cp) const {
    std::vector<Stack> next;
    size_t work = 0;
    for (const Stack& s : stacks) {
        if (s.empty() || !element(s.back()).matches(cp)) continue;
        Stack n = s;
        const Position at = n.back();
        n.pop_back();
        if (size_t(at.index + 1) < grammar_->rules[size_t(at.rule)].alternatives[size_t(at.alternative)].size())
            n.push_back({at.rule, at.alternative, at.index + 1});
        expand(std::move(n), next, work);
    }
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    // Nested repetitions of things that may be empty ("x"*)* can hold the text in very many ways
    // at once; past this many the grammar is refused rather than slowing every token to a crawl.
    if (next.size() > kMaxStacks) throw std::invalid_argument(tooAmbiguous());
    return next;
}

// Whether some stack's next character can start with the partial character's bytes.
bool GrammarMatcher::partialFits(const std::vector<Stack>& stacks, const Partial& partial) const {
    // A 7-bit character split over two bytes would be an overlong encoding: no character.
    if (partial.remaining == 1 && partial.value < 2) return false;
    uint32_t low = partial.value << (6 * partial.remaining);
    uint32_t high = low | ((1u << (6 * partial.remaining)) - 1);
    if (low == 0) low = partial.remaining == 2 ? 0x800 : partial.remaining == 3 ? 0x10000 : low;  // shortest forms only
    return std::any_of(stacks.begin(), stacks.end(), [&](const Stack& s) { return !s.empty() && element(s.back()).matchesAnyIn(low, high); });
}

bool GrammarMatcher::allows(std::string_view bytes) const {
    Decoded d = decodeUtf8(bytes, partial_);
    if (d.invalid) return false;
    const std::vector<Stack>* stacks = &stacks_;
    std::vector<Stack> moved;
    for (size_t i = 0; i < d.codePoints.size(); ++i) {
        if (i == 0) {
            auto it = firstStep_.find(d.codePoints[0]);
            if (it == firstStep_.end()) it = firstStep_.emplace(d.codePoints[0], step(stacks_, d.codePoints[0])).first;
            stacks = &it->second;
        } else {
            moved = step(*stacks, d.codePoints[i]);
            stacks = &moved;
        }
        if (stacks->empty()) return false;
    }
    return d.partial.remaining == 0 || partialFits(*stacks, d.partial);
}

void GrammarMatcher::accept(std::string_view bytes) {
    if (!allows(bytes)) throw std::invalid_argument(fmt::format("the grammar does not allow {:?} here", std::string(bytes)));
    Decoded d = decodeUtf8(bytes, partial_);
    for (uint32_t cp : d.codePoints) stacks_ = step(stacks_, cp);
    partial_ = d.partial;
    firstStep_.clear();
}

bool GrammarMatcher::canEnd() const {
    return partial_.remaining == 0 && std::any_of(stacks_.begin(), stacks_.end(), [](const Stack& s) { return s.empty(); });
}

bool GrammarMatcher::mustEnd() const {
    return std::all_of(stacks_.begin(), stacks_.end(), [](const Stack& s) { return s.empty(); });
}

GrammarConstraint::GrammarConstraint(std::shared_ptr<const Grammar> grammar, std::vector<std::string> tokenTexts, std::vector<int32_t> stopIds)
    : matcher_(std::move(grammar)), texts_(std::move(tokenTexts)), stops_(std::move(stopIds)) {}

bool GrammarConstraint::allows(int32_t id) const {
    ++checked_;
    if (std::find(stops_.begin(), stops_.end(), id) != stops_.end()) return matcher_.canEnd();
    // No text, or text that starts with a NUL byte (llama.cpp's pieces end there): never.
    if (id < 0 || size_t(id) >= texts_.size() || texts_[size_t(id)].empty() || texts_[size_t(id)][0] == '\0') return false;
    return matcher_.allows(texts_[size_t(id)]);
}

int GrammarConstraint::mask(float* logits, int64_t count) const {
    int allowed = 0;
    for (int64_t id = 0; id < count; ++id) {
        if (allows(int32_t(id))) ++allowed;
        else logits[id] = -std::numeric_limits<float>::infinity();
    }
    if (allowed == 0)
        throw std::runtime_error(steps_ == 0 ? "the grammar allows no token of this model's vocabulary at the first step: no token's text "
                                               "starts a sentence of it"
                                             : fmt::format("the grammar allows no token of this model's vocabulary after {} generated tokens "
                                                           "(and the grammar cannot end there)",
                                                           steps_));
    return allowed;
}

void GrammarConstraint::accept(int32_t token) {
    ++steps_;
    if (std::find(stops_.begin(), stops_.end(), token) != stops_.end()) return;
    matcher_.accept(size_t(token) < texts_.size() ? texts_[size_t(token)] : std::string());
}

}  // namespace llama
