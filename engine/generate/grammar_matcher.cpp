#include "generate/grammar_matcher.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace llama {

namespace {

constexpr uint32_t kNoPosition = std::numeric_limits<uint32_t>::max();  // an empty alternative

struct Decoded {
    std::vector<uint32_t> codePoints;
    GrammarMatcher::Partial partial;
    bool invalid = false;
};

// Whether [low, high] holds a character of text: not only NUL, not only surrogates.
bool holdsText(uint32_t low, uint32_t high) { return low <= high && high != 0 && !(low >= 0xD800 && high <= 0xDFFF); }

// UTF-8 bytes after a partial character: the whole characters, and the one left unfinished. Bytes
// that cannot begin or continue a character of text (a NUL, an overlong form, a surrogate, past
// U+10FFFF) are invalid as soon as no character is left that they could be the start of.
Decoded decodeUtf8(std::string_view bytes, GrammarMatcher::Partial p) {
    static constexpr uint32_t kShortest[] = {0, 0x80, 0x800, 0x10000};  // the least value of 1 to 4 bytes
    Decoded d;
    for (const char c : bytes) {
        const uint8_t b = uint8_t(c);
        if (p.remaining == 0) {
            const int extra = b < 0x80 ? 0 : (b & 0xE0) == 0xC0 ? 1 : (b & 0xF0) == 0xE0 ? 2 : (b & 0xF8) == 0xF0 ? 3 : -1;
            if (extra < 0) {
                d.invalid = true;
                return d;
            }
            p = {uint32_t(b & (0x7F >> extra)), extra, kShortest[extra], 0x10FFFF};
        } else if ((b & 0xC0) == 0x80) {
            p.value = (p.value << 6) | (b & 0x3F);
            --p.remaining;
        } else {
            d.invalid = true;
            return d;
        }
        const int bits = 6 * p.remaining;
        p.low = std::max(p.low, p.value << bits);
        p.high = std::min(p.high, (p.value << bits) | ((1u << bits) - 1));
        if (!holdsText(p.low, p.high)) {
            d.invalid = true;
            return d;
        }
        if (p.remaining == 0) d.codePoints.push_back(p.value);
    }
    d.partial = p;
    return d;
}

}  // namespace

GrammarMatcher::GrammarMatcher(std::shared_ptr<const Grammar> grammar) : grammar_(std::move(grammar)), nodes_{{0, 0}} {
    for (size_t r = 0; r < grammar_->rules.size(); ++r) {
        firstPosition_.emplace_back();
        for (const GrammarSequence& seq : grammar_->rules[r].alternatives) {
            firstPosition_.back().push_back(seq.empty() ? kNoPosition : uint32_t(positions_.size()));
            for (size_t i = 0; i < seq.size(); ++i) positions_.push_back({&seq[i], i + 1 == seq.size(), int(r)});
        }
    }
    std::vector<StackId> start;
    for (uint32_t first : firstPosition_[size_t(grammar_->root)]) start.push_back(first == kNoPosition ? 0 : intern(first, 0));
    stacks_ = close(std::move(start));
}

void GrammarMatcher::charge(size_t units) const {
    work_ += units;
    if (work_ > kMaxStepWork)
        throw std::invalid_argument(fmt::format("rule {}: checking the next token needs more than {} steps of the grammar's matcher (its bound per "
                                                "token): make the rule's repetitions unambiguous (a repeated part that can be empty, "
                                                "parts of different lengths repeated a bounded number of times, or two repetitions of "
                                                "the same characters side by side)",
                                                busiestRule(), kMaxStepWork));
}

GrammarMatcher::StackId GrammarMatcher::intern(uint32_t position, StackId below) const {
    charge(1);
    const auto [it, added] = ids_.try_emplace((uint64_t(position) << 32) | below, StackId(nodes_.size()));
    if (added) nodes_.push_back({position, below});
    return it->second;
}

GrammarMatcher::StackId GrammarMatcher::afterTop(StackId s) const {
    const Node n = nodes_[s];
    return positions_[n.position].last ? n.below : intern(n.position + 1, n.below);
}

std::vector<GrammarMatcher::StackId> GrammarMatcher::close(std::vector<StackId> pending) const {
    if (++closes_ == 0) {  // wrapped around: no stack is marked by this close yet
        std::fill(seenIn_.begin(), seenIn_.end(), 0);
        closes_ = 1;
    }
    std::vector<StackId> out;
    while (!pending.empty()) {
        const StackId s = pending.back();
        pending.pop_back();
        if (seenIn_.size() < nodes_.size()) seenIn_.resize(nodes_.size() * 2);
        if (seenIn_[s] == closes_) continue;
        seenIn_[s] = closes_;
        charge(1);
        const GrammarElement* top = s == 0 ? nullptr : positions_[nodes_[s].position].element;
        if (!top || top->kind == GrammarElement::Kind::Chars) {
            out.push_back(s);
            continue;
        }
        const StackId rest = afterTop(s);
        for (uint32_t first : firstPosition_[size_t(top->rule)]) pending.push_back(first == kNoPosition ? rest : intern(first, rest));
    }
    if (out.size() > kMaxStacks)
        throw std::invalid_argument(fmt::format("rule {}: the grammar can read this text in more than {} ways at once: make the rule's "
                                                "repetitions unambiguous (a repeated part that can be empty, or two repetitions of the "
                                                "same characters side by side)",
                                                busiestRule(), kMaxStacks));
    return out;
}

std::vector<GrammarMatcher::StackId> GrammarMatcher::step(const std::vector<StackId>& stacks, uint32_t cp) const {
    std::vector<StackId> moved;
    for (const StackId s : stacks) {
        charge(1);
        if (s != 0 && positions_[nodes_[s].position].element->matches(cp)) moved.push_back(afterTop(s));
    }
    return close(std::move(moved));
}

// Whether some stack's next character can start with the partial character's bytes.
bool GrammarMatcher::partialFits(const std::vector<StackId>& stacks, const Partial& partial) const {
    return std::any_of(stacks.begin(), stacks.end(),
                       [&](StackId s) { return s != 0 && positions_[nodes_[s].position].element->matchesTextIn(partial.low, partial.high); });
}

void GrammarMatcher::forgetFrom(size_t firstNode) const {
    for (size_t i = firstNode; i < nodes_.size(); ++i) ids_.erase((uint64_t(nodes_[i].position) << 32) | nodes_[i].below);
    nodes_.resize(firstNode);
}

bool GrammarMatcher::allows(std::string_view bytes) const {
    const Decoded d = decodeUtf8(bytes, partial_);
    if (d.invalid) return false;
    const std::vector<StackId>* stacks = &stacks_;
    if (!d.codePoints.empty()) {
        auto it = firstStep_.find(d.codePoints[0]);
        if (it == firstStep_.end()) it = firstStep_.emplace(d.codePoints[0], step(stacks_, d.codePoints[0])).first;
        stacks = &it->second;
    }
    // The nodes of the later characters are this token's alone: removed when it is decided.
    const size_t firstNode = nodes_.size();
    std::vector<StackId> moved;
    for (size_t i = 1; i < d.codePoints.size() && !stacks->empty(); ++i) {
        moved = step(*stacks, d.codePoints[i]);
        stacks = &moved;
    }
    const bool fits = !stacks->empty() && (d.partial.remaining == 0 || partialFits(*stacks, d.partial));
    forgetFrom(firstNode);
    return fits;
}

void GrammarMatcher::accept(std::string_view bytes) {
    if (!allows(bytes)) throw std::invalid_argument(fmt::format("the grammar does not allow {:?} here", std::string(bytes)));
    work_ = 0;  // the step that checked this token is over; moving by it is the next step's work
    const Decoded d = decodeUtf8(bytes, partial_);
    for (uint32_t cp : d.codePoints) stacks_ = step(stacks_, cp);
    partial_ = d.partial;
    firstStep_.clear();
    keepOnly(stacks_);
}

// The node table keeps what the stacks hold (tails shared), not every node made while checking tokens.
void GrammarMatcher::keepOnly(std::vector<StackId>& stacks) {
    const std::vector<Node> old = std::exchange(nodes_, {{0, 0}});
    ids_.clear();
    std::unordered_map<StackId, StackId> moved{{0, 0}};
    std::vector<StackId> chain;
    for (StackId& s : stacks) {
        chain.clear();
        for (StackId t = s; !moved.count(t); t = old[t].below) chain.push_back(t);
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) moved[*it] = intern(old[*it].position, moved.at(old[*it].below));
        s = moved.at(s);
    }
}

// The rule (as the grammar names it) that the most stacks are opened from: the one whose
// repetition holds the text in the most ways.
std::string GrammarMatcher::busiestRule() const {
    std::map<std::string_view, size_t> holding;
    for (size_t i = 1; i < nodes_.size(); ++i) {
        const StackId from = nodes_[i].below != 0 ? nodes_[i].below : StackId(i);
        ++holding[grammar_->userRuleName(positions_[nodes_[from].position].rule)];
    }
    const auto most = std::max_element(holding.begin(), holding.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    return most == holding.end() ? grammar_->rules[size_t(grammar_->root)].name : std::string(most->first);
}

bool GrammarMatcher::canEnd() const {
    return partial_.remaining == 0 && std::find(stacks_.begin(), stacks_.end(), 0) != stacks_.end();
}

bool GrammarMatcher::mustEnd() const {
    return std::all_of(stacks_.begin(), stacks_.end(), [](StackId s) { return s == 0; });
}

GrammarConstraint::GrammarConstraint(std::shared_ptr<const Grammar> grammar, std::vector<std::string> tokenTexts, std::vector<int32_t> stopIds)
    : matcher_(std::move(grammar)), texts_(std::move(tokenTexts)), stops_(std::move(stopIds)) {}

bool GrammarConstraint::allows(int32_t id) const {
    ++checked_;
    if (std::find(stops_.begin(), stops_.end(), id) != stops_.end()) return matcher_.canEnd();
    // No text: never (nor a NUL, which the matcher refuses as no character of text).
    if (id < 0 || size_t(id) >= texts_.size() || texts_[size_t(id)].empty()) return false;
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
