#include "generate/sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

#include "generate/grammar_matcher.h"
#include "ml/ops.h"

namespace llama {

namespace {
void requireLogits(const Tensor& logits) {
    if (logits.rank() != 1 || logits.dtype() != DType::F32)
        throw std::invalid_argument("Sampler expects F32 logits [VocabSize], got " + logits.shapeStr());
}
}  // namespace

void validateSamplingSettings(const SamplingSettings& s) {
    // Written so that NaN fails too.
    if (!(s.temperature >= 0 && s.temperature <= 100))
        throw std::invalid_argument(fmt::format("temperature {} is outside 0 to 100", s.temperature));
    if (s.topK < 0) throw std::invalid_argument("top-k must be 0 (off) or positive");
    if (!(s.topP > 0.0f && s.topP <= 1.0f)) throw std::invalid_argument(fmt::format("top-p {} must be in (0, 1]", s.topP));
    if (!(s.minP >= 0.0f && s.minP <= 1.0f)) throw std::invalid_argument(fmt::format("min-p {} must be in [0, 1] (0 is off)", s.minP));
    if (!(s.repeatPenalty > 0.0f && s.repeatPenalty <= 10.0f))
        throw std::invalid_argument(fmt::format("repeat penalty {} must be in (0, 10] (1 is off)", s.repeatPenalty));
    if (s.repeatLastN < -1) throw std::invalid_argument(fmt::format("repeat-last-n {} must be -1 (the whole context), 0 (off) or positive", s.repeatLastN));
    if (!(s.frequencyPenalty >= -10.0f && s.frequencyPenalty <= 10.0f))
        throw std::invalid_argument(fmt::format("frequency penalty {} must be in [-10, 10] (0 is off)", s.frequencyPenalty));
    if (!(s.presencePenalty >= -10.0f && s.presencePenalty <= 10.0f))
        throw std::invalid_argument(fmt::format("presence penalty {} must be in [-10, 10] (0 is off)", s.presencePenalty));
    if (s.mirostat < 0 || s.mirostat > 2) throw std::invalid_argument(fmt::format("mirostat {} must be 0 (off), 1 or 2", s.mirostat));
    if (!(s.mirostatTau > 0.0f && s.mirostatTau <= 100.0f))
        throw std::invalid_argument(fmt::format("mirostat tau {} must be above 0 and at most 100 (the target surprise in bits)", s.mirostatTau));
    if (!(s.mirostatEta > 0.0f && s.mirostatEta <= 1.0f))
        throw std::invalid_argument(fmt::format("mirostat eta {} must be above 0 and at most 1 (mu's learning rate)", s.mirostatEta));
    if (s.mirostat != 0) {
        if (s.temperature <= 0)
            throw std::invalid_argument("mirostat samples: it needs a temperature above 0 (llama.cpp's default is 0.8: --temperature 0.8)");
        if (s.topK != 0 || s.topP != 1.0f || s.minP != 0.0f || s.penalizes())
            throw std::invalid_argument("mirostat replaces top-k, top-p, min-p and the repetition penalties, as in llama.cpp: leave them out");
    }
}

Sampler::Sampler(SamplingSettings settings) : settings_(settings), rng_(settings.seed) {
    validateSamplingSettings(settings);
    if (settings.mirostat) mirostat_.emplace(settings.mirostat, settings.mirostatTau, settings.mirostatEta, settings.temperature, settings.seed);
}

Sampler::~Sampler() = default;

void Sampler::constrain(std::shared_ptr<GrammarConstraint> grammar) { grammar_ = std::move(grammar); }

bool Sampler::adjustsLogits() const { return settings_.penalizes() || grammar_; }

std::string Sampler::method() const {
    std::string how = lastMirostat_ ? fmt::format("mirostat {}: {} tokens kept, surprise {:.2f} bits, mu {:.3f} -> {:.3f}", mirostat_->version(),
                                                  lastMirostat_->kept, lastMirostat_->surprise, lastMirostat_->muBefore, lastMirostat_->muAfter)
                      : settings_.temperature > 0 ? "temperature sampling"
                                                  : "greedy: argmax";
    if (grammar_) how += allowed_ < 0 ? " after the grammar" : fmt::format(" after the grammar ({} tokens allowed)", allowed_);
    if (settings_.penalizes()) how += grammar_ ? " and repetition penalties" : " after repetition penalties";
    return how;
}

void Sampler::accept(int32_t token) {
    if (!settings_.penalizes()) return;
    window_.push_back(token);
    if (settings_.repeatLastN > 0 && int(window_.size()) > settings_.repeatLastN) window_.pop_front();
}

Tensor Sampler::penalize(const Tensor& logits) const {
    requireLogits(logits);
    Tensor out = logits.clone();
    allowed_ = out.numel();
    const bool checkFirst = drawsArgmax() && !countAllowed_;
    masked_ = grammar_ && !checkFirst;
    if (masked_) allowed_ = grammar_->mask(out.mutableData<float>(), out.numel());
    else if (grammar_) allowed_ = -1;
    if (!settings_.penalizes()) return out;
    std::unordered_map<int32_t, int> count;
    for (int32_t id : window_) count[id]++;
    float* l = out.mutableData<float>();
    for (const auto& [id, c] : count) {
        if (id < 0 || id >= out.numel()) continue;
        float& x = l[id];
        x = x <= 0 ? x * settings_.repeatPenalty : x / settings_.repeatPenalty;
        x -= float(c) * settings_.frequencyPenalty + settings_.presencePenalty;
    }
    return out;
}

double Sampler::uniform() { return double(rng_() >> 11) * 0x1.0p-53; }

namespace {
// Softmax of logits / temperature in double: every token with its probability, in id order.
std::vector<TokenProbability> probabilities(const Tensor& logits, float temperature) {
    const float* l = logits.data<float>();
    const int64_t n = logits.numel();
    double maxLogit = *std::max_element(l, l + n);
    std::vector<double> e(n);
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += e[i] = std::exp((double(l[i]) - maxLogit) / temperature);
    std::vector<TokenProbability> out(n);
    for (int64_t i = 0; i < n; ++i) out[i] = {int32_t(i), l[i], float(e[i] / sum)};
    return out;
}

// Most probable first; equal probabilities in id order.
bool moreProbable(const TokenProbability& a, const TokenProbability& b) {
    return a.probability > b.probability || (a.probability == b.probability && a.id < b.id);
}

// The same, most likely first (what std::stable_sort by probability gives).
std::vector<TokenProbability> sortedProbabilities(const Tensor& logits, float temperature) {
    auto out = probabilities(logits, temperature);
    std::sort(out.begin(), out.end(), moreProbable);
    return out;
}
}  // namespace

std::vector<TokenProbability> Sampler::topTokens(const Tensor& logits, int k) const {
    if (!logits.hasData()) return {};
    // Only the first k are put in order: the logit lens asks for a few tokens per position and layer.
    auto top = probabilities(logits, settings_.temperature > 0 ? settings_.temperature : 1.0f);
    const auto end = top.begin() + std::ptrdiff_t(std::min<size_t>(top.size(), size_t(std::max(k, 0))));
    std::partial_sort(top.begin(), end, top.end(), moreProbable);
    top.erase(end, top.end());
    return top;
}

std::vector<TokenProbability> Sampler::kept(const Tensor& logits) const {
    requireLogits(logits);
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
    if (settings_.minP > 0.0f) {
        // Sorted by probability is sorted by logit, so the kept tokens are again a prefix.
        const double minLogit = double(sorted[0].logit) + std::log(double(settings_.minP));
        size_t i = 1;
        while (i < keep && double(sorted[i].logit) >= minLogit) ++i;
        keep = i;
    }
    sorted.resize(keep);
    return sorted;
}

Sampler::Choice Sampler::next(const Tensor& logits) {
    if (!adjustsLogits()) return {choose(logits), std::nullopt};
    Tensor penalized = penalize(logits);
    return {choose(penalized), std::move(penalized)};
}

std::vector<TokenProbability> Sampler::distribution(const Tensor& logits) const {
    requireLogits(logits);
    if (settings_.temperature <= 0) {
        const auto id = int32_t(ml::Argmax(logits));
        return {{id, logits.data<float>()[id], 1.0f}};
    }
    auto tokens = kept(logits);
    double total = 0;
    for (const auto& t : tokens) total += t.probability;
    for (auto& t : tokens) t.probability = float(t.probability / total);
    return tokens;
}

int32_t Sampler::choose(const Tensor& logits) {
    int32_t id;
    if (grammar_ && !masked_ && drawsArgmax()) {
        // Greedy, not yet masked: an argmax the grammar allows is the masked argmax too (the mask
        // only lowers refused tokens; an allowed one's value is the same either way, penalties
        // included). A refused argmax: the whole vocabulary masked, and the argmax of that.
        id = draw(logits);
        if (!grammar_->allows(id)) id = draw(masked(logits));
    } else {
        id = draw(grammar_ && !masked_ ? masked(logits) : logits);
    }
    masked_ = false;
    if (grammar_) grammar_->accept(id);
    return id;
}

Tensor Sampler::masked(const Tensor& logits) const {
    Tensor out = logits.clone();
    allowed_ = grammar_->mask(out.mutableData<float>(), out.numel());
    return out;
}

int32_t Sampler::draw(const Tensor& logits) {
    requireLogits(logits);
    if (mirostat_) {
        lastMirostat_ = mirostat_->choose(logits);
        return lastMirostat_->token;
    }
    if (drawsArgmax()) return int32_t(ml::Argmax(logits));
    const auto tokens = kept(logits);
    double total = 0;
    for (const auto& t : tokens) total += t.probability;
    double r = uniform() * total;
    for (const auto& t : tokens) {
        r -= t.probability;
        if (r < 0) return t.id;
    }
    return tokens.back().id;
}

}  // namespace llama
