#include "generate/mirostat.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace llama {

namespace {
// v1 estimates the exponent from this many of the most likely tokens (llama.cpp's m = 100).
constexpr int kZipfTokens = 100;

struct Candidate {
    int32_t id;
    float logit;
    float p;
};

// llama.cpp's softmax over candidates sorted by logit, in float: p = exp(l - max) / sum.
void softmax(std::vector<Candidate>& c) {
    const float max = c.front().logit;
    float sum = 0;
    for (auto& x : c) sum += x.p = std::exp(x.logit - max);
    for (auto& x : c) x.p /= sum;
}

// A draw from the candidates' probabilities, as GCC's std::discrete_distribution over
// std::mt19937 makes it (what llama.cpp's Linux builds use), written out because the standard
// leaves the method to each library: the browser build's libc++ drew other tokens from the same
// seed. Normalised cumulative sums in double (the last set to 1), a uniform double from two
// 32-bit outputs (generate_canonical's 53 bits), the first cumulative sum not below it; one
// candidate takes no random number.
int drawIndex(const std::vector<Candidate>& c, std::mt19937& rng) {
    if (c.size() < 2) return 0;
    double sum = 0;
    for (const auto& x : c) sum += double(x.p);
    std::vector<double> cumulative(c.size());
    double running = 0;
    for (size_t i = 0; i < c.size(); ++i) cumulative[i] = running += double(c[i].p) / sum;
    cumulative.back() = 1.0;
    const double r1 = double(rng()), r2 = double(rng());
    double u = (r1 + r2 * 0x1.0p32) / 0x1.0p64;
    if (u >= 1.0) u = std::nextafter(1.0, 0.0);
    return int(std::lower_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
}
}  // namespace

Mirostat::Mirostat(int version, float tau, float eta, float temperature, uint64_t seed)
    : version_(version), tau_(tau), eta_(eta), temperature_(temperature), mu_(2.0f * tau), rng_(uint32_t(seed)) {
    if (version != 1 && version != 2) throw std::invalid_argument("mirostat version must be 1 or 2");
}

MirostatStep Mirostat::choose(const Tensor& logits) {
    const float* l = logits.data<float>();
    const int64_t vocab = logits.numel();
    std::vector<Candidate> c;
    c.reserve(size_t(vocab));
    for (int64_t i = 0; i < vocab; ++i)
        if (l[i] != -INFINITY) c.push_back({int32_t(i), l[i] / temperature_, 0});
    if (c.empty()) throw std::invalid_argument("mirostat: every token's logit is -inf");
    std::stable_sort(c.begin(), c.end(), [](const Candidate& a, const Candidate& b) { return a.logit > b.logit; });
    softmax(c);

    MirostatStep step;
    step.muBefore = mu_;
    size_t keep;
    if (version_ == 1) {
        float sumTiBi = 0, sumTiSq = 0;
        for (size_t i = 0; i + 1 < size_t(kZipfTokens) && i + 1 < c.size(); ++i) {
            const float ti = std::log(float(i + 2) / float(i + 1));
            const float bi = std::log(c[i].p / c[i + 1].p);
            sumTiBi += ti * bi;
            sumTiSq += ti * ti;
        }
        const float sHat = sumTiBi / sumTiSq;
        const float epsilonHat = sHat - 1;
        const float k = std::pow((epsilonHat * std::pow(2.0f, mu_)) / (1 - std::pow(float(vocab), -epsilonHat)), 1 / sHat);
        // int(k) of a NaN or of more than int holds is undefined: clamp first (llama.cpp does not).
        keep = !(k >= 1) ? 1 : k >= float(c.size()) ? c.size() : size_t(int(k));
    } else {
        keep = size_t(std::find_if(c.begin(), c.end(), [&](const Candidate& x) { return -std::log2(x.p) > mu_; }) - c.begin());
        keep = std::max<size_t>(keep, 1);
    }
    c.resize(keep);
    softmax(c);
    const int index = drawIndex(c, rng_);
    step.token = c[size_t(index)].id;
    step.kept = int(c.size());
    step.surprise = -std::log2(c[size_t(index)].p);
    mu_ = mu_ - eta_ * (step.surprise - tau_);
    step.muAfter = mu_;
    return step;
}

}  // namespace llama
