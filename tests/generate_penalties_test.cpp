// Repetition penalties on the bundled model: greedy decoding loops ("... I will not give them"),
// a repeat penalty breaks the loop, and the penalized logits reach the observers.
#include <catch2/catch.hpp>

#include <map>

#include "ml/ops.h"
#include "session/session.h"

using namespace llama;

namespace {
// How often the most frequent run of four generated tokens occurs.
int mostRepeatedFourGram(const std::vector<int32_t>& ids) {
    std::map<std::vector<int32_t>, int> count;
    int most = 0;
    for (size_t i = 0; i + 4 <= ids.size(); ++i) most = std::max(most, ++count[{ids.begin() + long(i), ids.begin() + long(i) + 4}]);
    return most;
}

GenerationResult greedyRun(const SamplingSettings& sampling, StageObserver* observer = nullptr) {
    static Session session;
    if (!session.model()) session.load({ModelSource::Kind::Files, std::string(ASSETS_DIR) + "/model"});
    session.clearObservers();
    if (observer) session.addObserver(observer);
    session.settings().sampling = sampling;
    session.settings().maxTokens = 64;
    return session.run();
}

struct PenalizedLogits : StageObserver {
    int samples = 0, penalized = 0;
    void onStage(const StageEvent& e) override {
        if (e.stage != StageId::Sample) return;
        ++samples;
        if (const Tensor* t = e.tensorField(kPenalizedLogits)) {
            ++penalized;
            // The sampled token is the argmax of the penalized logits, not necessarily of the raw ones.
            CHECK(int32_t(ml::Argmax(*t)) == e.tensors.at(1).tensor->data<int32_t>()[0]);
        }
    }
};
}  // namespace

TEST_CASE("a repeat penalty breaks the bundled model's greedy loop", "[generate][penalties][model]") {
    const GenerationResult plain = greedyRun({});
    INFO(plain.text);
    REQUIRE(plain.generatedTokens.size() == 64);
    CHECK(plain.text.find("I will not give them.\nAnd Moses said") != std::string::npos);
    CHECK(mostRepeatedFourGram(plain.generatedTokens) >= 3);

    PenalizedLogits seen;
    const GenerationResult penalized = greedyRun({.repeatPenalty = 1.3f}, &seen);
    INFO(penalized.text);
    CHECK(mostRepeatedFourGram(penalized.generatedTokens) == 1);
    CHECK(penalized.generatedTokens != std::vector<int32_t>(plain.generatedTokens.begin(),
                                                           plain.generatedTokens.begin() + long(penalized.generatedTokens.size())));
    CHECK(seen.samples > 0);
    CHECK(seen.penalized == seen.samples);
}

TEST_CASE("penalties with no effect leave greedy output and events unchanged", "[generate][penalties][model]") {
    const GenerationResult plain = greedyRun({});
    PenalizedLogits seen;
    // A window of 0 or a penalty of 1 switches the penalties off: no penalized logits are emitted.
    CHECK(greedyRun({.repeatPenalty = 1.5f, .repeatLastN = 0}, &seen).generatedTokens == plain.generatedTokens);
    CHECK(greedyRun({.repeatPenalty = 1.0f, .repeatLastN = 256}, &seen).generatedTokens == plain.generatedTokens);
    CHECK(seen.samples > 0);
    CHECK(seen.penalized == 0);
}
