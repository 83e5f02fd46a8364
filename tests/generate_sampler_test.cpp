#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <map>

#include "generate/chat_template.h"
#include "generate/sampler.h"

using namespace llama;

namespace {
Tensor samplerLogits(std::vector<float> v) {
    Tensor t({int64_t(v.size())}, DType::F32);
    std::copy(v.begin(), v.end(), t.mutableData<float>());
    return t;
}
}  // namespace

TEST_CASE("greedy sampling takes the argmax", "[generate][sampler]") {
    Sampler s({});
    REQUIRE(s.sample(samplerLogits({0.1f, 3.0f, -1.0f, 2.9f})) == 1);
}

TEST_CASE("top-k 1 is greedy whatever the temperature", "[generate][sampler]") {
    Sampler s({.temperature = 5.0f, .topK = 1, .topP = 1.0f, .seed = 7});
    for (int i = 0; i < 20; ++i) REQUIRE(s.sample(samplerLogits({0.1f, 3.0f, -1.0f, 2.9f})) == 1);
}

TEST_CASE("top-p keeps the smallest prefix reaching p", "[generate][sampler]") {
    // Probabilities ~0.64, 0.24, 0.09, 0.03: top-p 0.8 keeps ids 0 and 1 only.
    Sampler s({.temperature = 1.0f, .topK = 0, .topP = 0.8f, .seed = 3});
    std::map<int, int> seen;
    for (int i = 0; i < 400; ++i) seen[s.sample(samplerLogits({3.0f, 2.0f, 1.0f, 0.0f}))]++;
    REQUIRE(seen.size() == 2);
    REQUIRE(seen[0] > seen[1]);
}

TEST_CASE("sampling with a seed is reproducible and follows the probabilities", "[generate][sampler]") {
    SamplingSettings settings{.temperature = 1.0f, .topK = 0, .topP = 1.0f, .seed = 42};
    Sampler a(settings), b(settings);
    std::vector<int> ra, rb;
    int count0 = 0;
    for (int i = 0; i < 2000; ++i) {
        ra.push_back(a.sample(samplerLogits({1.0f, 0.0f})));
        rb.push_back(b.sample(samplerLogits({1.0f, 0.0f})));
        count0 += ra.back() == 0;
    }
    REQUIRE(ra == rb);
    // P(0) = e / (e + 1) = 0.731; 2000 draws: standard deviation about 0.01.
    REQUIRE(count0 / 2000.0 == Approx(0.731).margin(0.04));
}

TEST_CASE("topTokens lists probabilities in order", "[generate][sampler]") {
    Sampler s({});
    auto top = s.topTokens(samplerLogits({0.0f, 2.0f, 1.0f}), 2);
    REQUIRE(top.size() == 2);
    REQUIRE(top[0].id == 1);
    REQUIRE(top[1].id == 2);
    REQUIRE(top[0].probability == Approx(0.665241).epsilon(1e-4));
}

TEST_CASE("bad sampling settings are refused", "[generate][sampler][errors]") {
    REQUIRE_THROWS_WITH(Sampler({.temperature = 1, .topK = 0, .topP = 0.0f}), Catch::Contains("top-p"));
    REQUIRE_THROWS_WITH(Sampler({.temperature = 1, .topK = -2}), Catch::Contains("top-k"));
    REQUIRE_THROWS_WITH(Sampler({.temperature = 1, .minP = 1.5f}), Catch::Contains("min-p 1.5 must be in [0, 1]"));
    REQUIRE_THROWS_WITH(Sampler({.temperature = 1, .minP = std::nanf("")}), Catch::Contains("min-p"));
}

TEST_CASE("bad penalty settings are refused with the setting and its range", "[generate][sampler][penalties][errors]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    REQUIRE_THROWS_WITH(Sampler({.repeatPenalty = nan}), Catch::Contains("repeat penalty nan must be in (0, 10]"));
    REQUIRE_THROWS_WITH(Sampler({.repeatPenalty = 0}), Catch::Contains("repeat penalty 0 must be in (0, 10]"));
    REQUIRE_THROWS_WITH(Sampler({.repeatLastN = -2}), Catch::Contains("repeat-last-n -2"));
    REQUIRE_THROWS_WITH(Sampler({.frequencyPenalty = nan}), Catch::Contains("frequency penalty nan"));
    REQUIRE_THROWS_WITH(Sampler({.presencePenalty = -11}), Catch::Contains("presence penalty -11 must be in [-10, 10]"));
    REQUIRE_THROWS_WITH(Sampler({.temperature = nan}), Catch::Contains("temperature nan"));
}

TEST_CASE("the penalties' window holds the last repeat-last-n accepted tokens", "[generate][sampler][penalties]") {
    Sampler s({.repeatLastN = 2, .presencePenalty = 1.0f});
    for (int32_t id : {0, 1, 2}) s.accept(id);  // 0 has left the window
    const Tensor p = s.penalize(samplerLogits({1.0f, 1.0f, 1.0f, 1.0f}));
    CHECK(p.floatAt(0) == 1.0f);
    CHECK(p.floatAt(1) == 0.0f);
    CHECK(p.floatAt(2) == 0.0f);
    CHECK(p.floatAt(3) == 1.0f);
    Sampler all({.repeatLastN = -1, .presencePenalty = 1.0f});
    for (int32_t id : {0, 1, 2}) all.accept(id);
    CHECK(all.penalize(samplerLogits({1.0f, 1.0f, 1.0f, 1.0f})).floatAt(0) == 0.0f);
}

TEST_CASE("Llama 3 chat template", "[generate][template]") {
    REQUIRE(formatPrompt(PromptMode::Completion, "", "Hello", ChatFormat::Llama3, false).text() == "<|begin_of_text|>Hello");
    REQUIRE(formatPrompt(PromptMode::Chat, "Be brief.", "Hi", ChatFormat::Llama3, false).text() ==
            "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
    REQUIRE(formatPrompt(PromptMode::Chat, "", "Hi", ChatFormat::Llama3, false).text() ==
            "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n");
}
