// The sampler (repetition penalties, temperature, top-k, top-p) against the numpy reference of
// assets/golden/make_rope_sampler_golden.py, which states the semantics: llama.cpp's penalties
// first, on the raw logits; then softmax(logits / T), top-k, top-p (the shortest prefix reaching
// p), renormalized. Min-p against assets/golden/make_min_p_golden.py's reference.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "generate/sampler.h"

using namespace llama;

namespace {
nlohmann::json goldenFile(const std::string& name) {
    std::ifstream in(std::string(ASSETS_DIR) + "/golden/" + name);
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

SamplingSettings settingsOf(const nlohmann::json& s, uint64_t seed) {
    return {.temperature = s["temperature"], .topK = s["top_k"], .topP = s["top_p"], .seed = seed, .repeatPenalty = s["repeat_penalty"],
            .repeatLastN = s["repeat_last_n"], .frequencyPenalty = s["frequency_penalty"], .presencePenalty = s["presence_penalty"]};
}

Tensor logitsOf(const std::vector<float>& v) {
    Tensor t({int64_t(v.size())}, DType::F32);
    std::copy(v.begin(), v.end(), t.mutableData<float>());
    return t;
}
}  // namespace

TEST_CASE("sampler matches the reference: penalties, temperature, top-k, top-p", "[golden][generate][sampler]") {
    const auto golden = goldenFile("sampler.json");
    REQUIRE(golden["cases"].size() >= 20);
    int index = 0;
    for (const auto& c : golden["cases"]) {
        DYNAMIC_SECTION("case " << index++ << " " << c["settings"].dump()) {
            Sampler sampler(settingsOf(c["settings"], 1));
            for (int32_t id : c["history"].get<std::vector<int32_t>>()) sampler.accept(id);
            const Tensor penalized = sampler.penalize(logitsOf(c["logits"]));
            const std::vector<float> want = c["penalized"];
            for (size_t i = 0; i < want.size(); ++i) REQUIRE(penalized.floatAt(int64_t(i)) == Approx(want[i]).epsilon(1e-6));

            const auto dist = sampler.distribution(penalized);
            const auto& ref = c["distribution"];
            REQUIRE(dist.size() == ref.size());
            for (size_t i = 0; i < dist.size(); ++i) {
                REQUIRE(dist[i].id == ref[i][0].get<int32_t>());
                REQUIRE(dist[i].probability == Approx(ref[i][1].get<double>()).epsilon(1e-5));
            }
        }
    }
}

// Draws with a fixed seed follow the reference distribution: every token drawn is one the
// reference keeps, and each one's frequency is within 5 standard deviations of its probability.
TEST_CASE("seeded draws follow the reference distribution", "[golden][generate][sampler]") {
    const auto golden = goldenFile("sampler.json");
    for (const auto& c : golden["cases"]) {
        if (c["settings"]["temperature"].get<double>() <= 0) continue;
        DYNAMIC_SECTION(c["settings"].dump()) {
            Sampler sampler(settingsOf(c["settings"], 20241123));
            for (int32_t id : c["history"].get<std::vector<int32_t>>()) sampler.accept(id);
            const Tensor logits = logitsOf(c["logits"]);
            const int draws = 20000;
            std::map<int32_t, int> seen;
            for (int i = 0; i < draws; ++i) seen[sampler.sample(logits)]++;
            std::map<int32_t, double> want;
            for (const auto& p : c["distribution"]) want[p[0].get<int32_t>()] = p[1].get<double>();
            for (const auto& [id, n] : seen) REQUIRE(want.count(id));
            for (const auto& [id, p] : want) {
                const double sd = std::sqrt(p * (1 - p) / draws);
                INFO("token " << id << " drawn " << seen[id] << " times, probability " << p);
                REQUIRE(std::abs(seen[id] / double(draws) - p) <= 5 * sd + 1e-9);
            }
        }
    }
}

TEST_CASE("min-p keeps what the reference keeps, with and without temperature, top-k and top-p", "[golden][generate][sampler]") {
    const auto cases = goldenFile("min_p.json")["cases"];
    REQUIRE(cases.size() >= 16);
    int index = 0;
    for (const auto& c : cases) {
        DYNAMIC_SECTION("case " << index++ << " " << c["settings"].dump()) {
            const auto& s = c["settings"];
            Sampler sampler({.temperature = s["temperature"], .topK = s["top_k"], .topP = s["top_p"], .minP = s["min_p"]});
            const auto dist = sampler.distribution(logitsOf(c["logits"]));
            const auto& ref = c["distribution"];
            REQUIRE(dist.size() == ref.size());
            for (size_t i = 0; i < dist.size(); ++i) {
                REQUIRE(dist[i].id == ref[i][0].get<int32_t>());
                REQUIRE(dist[i].probability == Approx(ref[i][1].get<double>()).epsilon(1e-5));
            }
        }
    }
}
