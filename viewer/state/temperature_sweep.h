#pragma once
// The logits panel's temperature slider: the next-token probabilities at another temperature
// than the run's, to see how temperature flattens or sharpens the choice. The run is unchanged.
#include <vector>

#include "generate/sampler.h"

namespace llama::viewer {

struct SweptTokens {
    std::vector<TokenProbability> top;  // most likely first
    bool wholeVocabulary = true;        // false: renormalised over the recorded top tokens only
};

// softmax(logits / temperature) over the whole vocabulary when `logits` (F32 [VocabSize]) has
// values, else over `recorded` alone (a trace keeps only its top tokens' logits). Temperature 0
// is greedy: the largest logit gets probability 1.
SweptTokens tokensAtTemperature(const Tensor* logits, const std::vector<TokenProbability>& recorded, float temperature, int k);

}  // namespace llama::viewer
