#pragma once
// Picks the next token from the logits of the last position. Greedy (argmax) by default, as
// the walkthrough does; with a temperature, top-k and top-p narrow the choice and a seeded
// generator draws from it, so a run is reproducible run to run and machine to machine.
//
// Repetition penalties (off by default) follow llama.cpp's penalties sampler and its place in
// llama.cpp's default chain: first, on the raw logits, before temperature, top-k and top-p (and
// before argmax when greedy). Over the last `repeatLastN` tokens (prompt included, as llama.cpp
// accepts the prompt into its window), a token seen c > 0 times gets
//   logit = logit <= 0 ? logit * repeatPenalty : logit / repeatPenalty
//   logit -= c * frequencyPenalty + presencePenalty
// Our order after the penalties stays Meta's: softmax(logits / temperature), top-k, top-p; then
// min-p, llama.cpp's sampler, in its place in llama.cpp's default chain (after top-p, before the
// temperature): it keeps the tokens whose probability at temperature 1 is at least minP times the
// most likely token's, i.e. logit >= max logit + ln(minP). As there, the temperature does not
// move that threshold, and the most likely token always stays.
//
// Mirostat (mirostat.h) replaces all of that but the temperature, as in llama.cpp's chain. A
// grammar (grammar_matcher.h) comes first of all: the tokens it does not allow get -inf before the
// penalties, and the chosen token moves it.
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "generate/mirostat.h"
#include "tensor/tensor.h"

namespace llama {

struct SamplingSettings {
    float temperature = 0.0f;  // <= 0: greedy
    int topK = 0;              // 0: no limit
    float topP = 1.0f;         // 1: no limit
    float minP = 0.0f;         // 0: no limit; keeps p >= minP * p(most likely), at temperature 1
    uint64_t seed = 0x5eed;
    float repeatPenalty = 1.0f;     // 1: off; > 1 discourages repeats
    int repeatLastN = 64;           // the penalties' window in tokens; 0: off, -1: the whole context
    float frequencyPenalty = 0.0f;  // subtracted once per occurrence in the window
    float presencePenalty = 0.0f;   // subtracted once if the token occurs in the window
    int mirostat = 0;               // 0: off; 1 or 2: llama.cpp's mirostat samplers
    float mirostatTau = 5.0f;       // the target surprise in bits (llama.cpp's default)
    float mirostatEta = 0.1f;       // mu's learning rate (llama.cpp's default)

    bool penalizes() const { return repeatLastN != 0 && (repeatPenalty != 1.0f || frequencyPenalty != 0.0f || presencePenalty != 0.0f); }
};

// Throws std::invalid_argument naming the setting and its range (NaN included).
void validateSamplingSettings(const SamplingSettings& settings);

struct TokenProbability {
    int32_t id;
    float logit;
    float probability;  // after temperature (greedy: temperature 1)
};

class GrammarConstraint;

class Sampler {
public:
    explicit Sampler(SamplingSettings settings);
    ~Sampler();
    // Constrains the tokens to a grammar from now on (penalize() masks, choose() moves it).
    void constrain(std::shared_ptr<GrammarConstraint> grammar);
    // Whether penalize() changes anything: penalties or a grammar.
    bool adjustsLogits() const;
    // How the last choose() chose, for the log line: "greedy: argmax", "temperature sampling",
    // "mirostat 2: 12 tokens kept, surprise 5.57 bits, mu 10.000 -> 9.943", with what came before it ("after the
    // grammar (37 of 4096 tokens allowed)", "after repetition penalties").
    std::string method() const;
    // Tokens the grammar allowed at the last penalize() (the logits' size without a grammar; -1
    // when they were not counted: greedy checks its argmax first, see countAllowed).
    int64_t allowedTokens() const { return allowed_; }
    // Greedy under a grammar asks the grammar about its argmax only, and masks the whole
    // vocabulary just when the argmax is refused (the masked argmax is then the same token):
    // one token's check per step instead of the vocabulary's. With countAllowed(true), penalize()
    // masks every step anyway, for an observer that shows the allowed count and masked logits.
    // A draw (temperature, mirostat) always masks first: its distribution is the masked one.
    void countAllowed(bool yes) { countAllowed_ = yes; }
    // A token of the sequence (prompt or generated): it enters the penalties' window.
    void accept(int32_t token);
    // The logits after the grammar's mask and the repetition penalties (a copy; the same values
    // when there are none; greedy, unless countAllowed: not yet masked, see countAllowed).
    Tensor penalize(const Tensor& logits) const;
    // Chooses from logits that have been through penalize(): argmax, or top-k, top-p, min-p and a draw.
    int32_t choose(const Tensor& penalizedLogits);
    // What choose() draws from, most likely first, renormalized (greedy: the argmax, 1).
    std::vector<TokenProbability> distribution(const Tensor& penalizedLogits) const;
    // The whole chain: penalize() when something adjusts the logits, then choose(). logits: F32
    // [VocabSize]. The penalized logits come back too (for an observer), when they were made.
    struct Choice {
        int32_t token;
        std::optional<Tensor> penalized;
    };
    Choice next(const Tensor& logits);
    int32_t sample(const Tensor& logits) { return next(logits).token; }
    // The k most likely tokens with their probabilities (for display and traces).
    std::vector<TokenProbability> topTokens(const Tensor& logits, int k) const;
    const SamplingSettings& settings() const { return settings_; }

private:
    // The tokens top-k, top-p and min-p keep, most likely first, with their softmax probabilities.
    std::vector<TokenProbability> kept(const Tensor& logits) const;
    int32_t draw(const Tensor& logits);  // choose() before the grammar moves
    Tensor masked(const Tensor& logits) const;  // a copy through the grammar's mask
    bool drawsArgmax() const { return settings_.temperature <= 0 && !mirostat_; }  // greedy
    double uniform();  // [0, 1), from the 53 high bits: identical on every platform
    SamplingSettings settings_;
    std::mt19937_64 rng_;
    std::deque<int32_t> window_;  // the last repeatLastN accepted tokens (all with -1)
    std::shared_ptr<GrammarConstraint> grammar_;
    std::optional<Mirostat> mirostat_;
    std::optional<MirostatStep> lastMirostat_;
    mutable int64_t allowed_ = 0;
    mutable bool masked_ = false;  // the logits choose() gets went through the grammar's mask
    bool countAllowed_ = false;
};

}  // namespace llama
