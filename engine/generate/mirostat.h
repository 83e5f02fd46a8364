#pragma once
// Mirostat (Basu et al., 2021, "Mirostat: A neural text decoding algorithm that directly controls
// perplexity"), as llama.cpp's samplers run it: instead of a fixed top-k or top-p, the sampler
// keeps a running target `mu` for the surprise (-log2 p) of the next token, truncates the
// distribution by it, draws, and moves mu by eta times the error between the drawn token's
// surprise and the target tau. mu starts at 2 * tau.
//   v1: estimates the Zipf exponent s of the distribution from its 100 most likely tokens and keeps
//       the k tokens that exponent says give an expected surprise of mu.
//   v2: keeps the tokens whose surprise is at most mu (at least the most likely one).
// In llama.cpp's chain it replaces top-k, top-p, min-p and the penalties: the logits are divided by
// the temperature, then mirostat picks. The arithmetic is llama.cpp's, in float, and the draw is
// std::discrete_distribution over the kept probabilities with a std::mt19937 seeded with the low
// 32 bits of the seed, so the same logits give llama.cpp's token for the same seed.
#include <cstdint>
#include <random>

#include "tensor/tensor.h"

namespace llama {

struct MirostatStep {
    int32_t token = -1;
    int kept = 0;          // tokens left after the truncation
    float muBefore = 0;    // the target this step truncated with
    float muAfter = 0;     // after the update
    float surprise = 0;    // -log2 p of the drawn token, p renormalized over the kept tokens
};

class Mirostat {
public:
    // version 1 or 2; tau > 0 (the target surprise in bits); eta the learning rate.
    Mirostat(int version, float tau, float eta, float temperature, uint64_t seed);
    // logits: F32 [VocabSize]; -inf entries (a grammar's) are never kept.
    MirostatStep choose(const Tensor& logits);
    float mu() const { return mu_; }
    int version() const { return version_; }

private:
    int version_;
    float tau_, eta_, temperature_;
    float mu_;
    std::mt19937 rng_;
};

}  // namespace llama
