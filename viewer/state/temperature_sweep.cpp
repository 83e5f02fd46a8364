#include "state/temperature_sweep.h"

#include <algorithm>
#include <cmath>

namespace llama::viewer {

SweptTokens tokensAtTemperature(const Tensor* logits, const std::vector<TokenProbability>& recorded, float temperature, int k) {
    SweptTokens out;
    if (logits && logits->hasData()) {
        // The sampler's own softmax; at temperature 0 it shows temperature 1, fixed below.
        out.top = Sampler(SamplingSettings{.temperature = temperature}).topTokens(*logits, k);
    } else {
        out.wholeVocabulary = false;
        out.top = recorded;
        std::sort(out.top.begin(), out.top.end(), [](const auto& a, const auto& b) { return a.logit > b.logit; });
        if (!out.top.empty() && temperature > 0) {
            double total = 0;
            for (auto& t : out.top) total += std::exp(double(t.logit - out.top.front().logit) / temperature);
            for (auto& t : out.top) t.probability = float(std::exp(double(t.logit - out.top.front().logit) / temperature) / total);
        }
        if (int(out.top.size()) > k) out.top.resize(size_t(k));
    }
    if (temperature <= 0)
        for (size_t i = 0; i < out.top.size(); ++i) out.top[i].probability = i == 0 ? 1.0f : 0.0f;
    return out;
}

}  // namespace llama::viewer
