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
        // A trace may hold any float here: a NaN logit ranks last and gets no probability (and
        // keeps the sort's order strict), and infinite ones take the softmax's limit, +inf
        // sharing everything, -inf nothing.
        auto rank = [](float logit) { return std::isnan(logit) ? -INFINITY : logit; };
        std::stable_sort(out.top.begin(), out.top.end(), [&](const auto& a, const auto& b) { return rank(a.logit) > rank(b.logit); });
        if (!out.top.empty() && temperature > 0) {
            const double top = rank(out.top.front().logit);
            auto weight = [&](float logit) {
                const double x = rank(logit);
                if (std::isinf(top)) return x == top && top > 0 ? 1.0 : 0.0;
                return std::exp((x - top) / temperature);
            };
            double total = 0;
            for (auto& t : out.top) total += weight(t.logit);
            for (auto& t : out.top) t.probability = total > 0 ? float(weight(t.logit) / total) : 0.0f;
        }
        if (int(out.top.size()) > k) out.top.resize(size_t(k));
    }
    if (temperature <= 0)
        for (size_t i = 0; i < out.top.size(); ++i) out.top[i].probability = i == 0 ? 1.0f : 0.0f;
    return out;
}

}  // namespace llama::viewer
