// Speculative decoding (batch/speculative_generation.h) on the bundled model: with greedy
// sampling the text is the plain greedy text, whatever drafts: the model's first layers
// (self-speculation), a quantized copy of itself, any --draft-max; the drafts' bookkeeping adds up.
#include <catch2/catch.hpp>

#include <filesystem>

#include "formats/gguf/gguf_export.h"
#include "session/session.h"

using namespace llama;

namespace {
const std::vector<std::string> kSpeculationPrompts = {"And God said", "In the beginning", "The LORD is my shepherd", "Blessed are the poor in spirit"};

GenerationResult runWith(const std::string& prompt, const std::function<void(GenerationSettings&)>& set) {
    static Session session;
    if (!session.model()) session.load({ModelSource::Kind::Files, std::string(ASSETS_DIR) + "/model"});
    session.settings() = GenerationSettings{};
    session.settings().prompt = prompt;
    session.settings().maxTokens = 40;
    set(session.settings());
    return session.run();
}
}  // namespace

TEST_CASE("speculative: greedy text with the first layers drafting equals plain decoding", "[batch][speculative]") {
    for (const auto& prompt : kSpeculationPrompts) {
        const GenerationResult plain = runWith(prompt, [](GenerationSettings&) {});
        for (const auto& setting : {std::pair{2, 8}, {6, 4}, {7, 1}}) {
            const int layers = setting.first, draftMax = setting.second;  // named: clang 14 captures no structured binding
            INFO(prompt << " --draft-layers " << layers << " --draft-max " << draftMax);
            const GenerationResult spec = runWith(prompt, [&](GenerationSettings& g) {
                g.draftLayers = layers;
                g.draftMax = draftMax;
            });
            CHECK(spec.generatedTokens == plain.generatedTokens);
            CHECK(spec.text == plain.text);
            REQUIRE(spec.speculative);
            const SpeculativeStats& s = *spec.speculative;
            CHECK(s.accepted <= s.drafted);
            // Every target pass yields its accepted drafts and one token of its own.
            CHECK(int(spec.generatedTokens.size()) <= 1 + s.accepted + s.rounds);
            CHECK(s.drafted <= s.rounds * draftMax);
        }
    }
}

TEST_CASE("speculative: a draft model with the same vocabulary (the model in Q8_0) keeps the text and accepts most drafts", "[batch][speculative]") {
    const std::string draft = (std::filesystem::temp_directory_path() / "llama_speculative_draft_q8_0.gguf").string();
    {
        Session s;
        s.load({ModelSource::Kind::Files, std::string(ASSETS_DIR) + "/model"});
        exportGguf(*s.model(), DType::Q8_0, draft);
    }
    for (const auto& prompt : kSpeculationPrompts) {
        INFO(prompt);
        const GenerationResult plain = runWith(prompt, [](GenerationSettings&) {});
        const GenerationResult spec = runWith(prompt, [&](GenerationSettings& g) { g.draftModel = draft; });
        CHECK(spec.generatedTokens == plain.generatedTokens);
        REQUIRE(spec.speculative);
        CHECK(spec.speculative->acceptanceRate() > 0.5);
    }
    std::filesystem::remove(draft);
}

TEST_CASE("speculative: sampling, what-ifs and a foreign vocabulary are refused, naming the option", "[batch][speculative][hostile]") {
    CHECK_THROWS_WITH(runWith("And", [](GenerationSettings& g) {
                          g.draftLayers = 2;
                          g.sampling.temperature = 0.8f;
                      }),
                      Catch::Contains("give --temperature 0"));
    CHECK_THROWS_WITH(runWith("And", [](GenerationSettings& g) { g.draftLayers = 8; }), Catch::Contains("--draft-layers 8"));
    CHECK_THROWS_WITH(runWith("And", [](GenerationSettings& g) {
                          g.draftLayers = 2;
                          g.whatIf.noRope = true;
                      }),
                      Catch::Contains("no what-if"));
    // A llama2.c model: another vocabulary (4096 tokens, but other pieces).
    CHECK_THROWS_WITH(runWith("And", [](GenerationSettings& g) { g.draftModel = std::string(TEST_FIXTURES_DIR) + "/llama2c/legacy.bin"; }),
                      Catch::Contains("a draft must share the target's vocabulary"));
}
