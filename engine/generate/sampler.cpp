#include "generate/sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "ml/ops.h"

namespace llama {

Sampler::Sampler(SamplingSettings settings) : settings_(settings), rng_(settings.seed) {
    // Written so that NaN fails too.
    if (!(settings.temperature >= 0 && settings.temperature <= 100))
        throw std::invalid_argument(fmt::format("temperature {} is outside 0 to 100", settings.temperature));
    if (settings.topK < 0) throw std::invalid_argument("top-k must be 0 (off) or positive");
    if (!(settings.topP > 0.0f && settings.topP <= 1.0f)) throw std::invalid_argument("top-p must be in (0, 1]");
}

double Sampler::uniform() { return double(rng_() >> 11) * 0x1.0p-53; }

namespace {
// Softmax of logits / temperature in double, sorted by probability, most likely first.
std::vector<TokenProbability> sortedProbabilities(const Tensor& logits, float temperature) {
    const float* l = logits.data<float>();
    const int64_t n = logits.numel();
    double maxLogit = *std::max_element(l, l + n);
    std::vector<double> e(n);
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += e[i] = std::exp((double(l[i]) - maxLogit) / temperature);
    std::vector<TokenProbability> out(n);
    for (int64_t i = 0; i < n; ++i) out[i] = {int32_t(i), l[i], float(e[i] / sum)};
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.probability > b.probability; });
    return out;
}
}  // namespace

std::vector<TokenProbability> Sampler::topTokens(const Tensor& logits, int k) const {
    if (!logits.hasData()) return {};
    auto sorted = sortedProbabilities(logits, settings_.temperature > 0 ? settings_.temperature : 1.0f);
    sorted.resize(std::min<size_t>(sorted.size(), size_t(k)));
    return sorted;
}

int32_t Sampler::sample(const Tensor& logits) {
    if (logits.rank() != 1 || logits.dtype() != DType::F32)
        throw std::invalid_argument("Sampler::sample expects F32 logits [VocabSize], got " + logits.shapeStr());
    if (settings_.temperature <= 0) return int32_t(ml::Argmax(logits));

    auto sorted = sortedProbabilities(logits, settings_.temperature);
    size_t keep = sorted.size();
    if (settings_.topK > 0) keep = std::min(keep, size_t(settings_.topK));
    if (settings_.topP < 1.0f) {
        // The smallest prefix whose probability reaches top-p (at least one token).
        double cumulative = 0;
        size_t i = 0;
        while (i < keep) {
            cumulative += sorted[i++].probability;
            if (cumulative >= settings_.topP) break;
        }
        keep = i;
    }
    double total = 0;
    for (size_t i = 0; i < keep; ++i) total += sorted[i].probability;
    double r = uniform() * total;
    for (size_t i = 0; i < keep; ++i) {
        r -= sorted[i].probability;
        if (r < 0) return sorted[i].id;
    }
    return sorted[keep - 1].id;
}

}  // namespace llama
