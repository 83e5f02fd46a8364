#pragma once
// Picks the next token from the logits of the last position. Greedy (argmax) by default, as
// the walkthrough does; with a temperature, top-k and top-p narrow the choice and a seeded
// generator draws from it, so a run is reproducible run to run and machine to machine.
#include <cstdint>
#include <random>
#include <vector>

#include "tensor/tensor.h"

namespace llama {

struct SamplingSettings {
    float temperature = 0.0f;  // <= 0: greedy
    int topK = 0;              // 0: no limit
    float topP = 1.0f;         // 1: no limit
    uint64_t seed = 0x5eed;
};

struct TokenProbability {
    int32_t id;
    float logit;
    float probability;  // after temperature (greedy: temperature 1)
};

class Sampler {
public:
    explicit Sampler(SamplingSettings settings);
    // logits: F32 [VocabSize].
    int32_t sample(const Tensor& logits);
    // The k most likely tokens with their probabilities (for display and traces).
    std::vector<TokenProbability> topTokens(const Tensor& logits, int k) const;
    const SamplingSettings& settings() const { return settings_; }

private:
    double uniform();  // [0, 1), from the 53 high bits: identical on every platform
    SamplingSettings settings_;
    std::mt19937_64 rng_;
};

}  // namespace llama
