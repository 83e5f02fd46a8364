// The synthetic presets' tokenizers: a byte tokenizer of the preset's family (so --chat uses that
// family's template), or a real tokenizer file of the preset's vocabulary size (--tokenizer).
#include <catch2/catch.hpp>

#include <memory>

#include "reference_tokenizers.h"
#include "session/session.h"

using namespace llama;

namespace {
std::unique_ptr<Session> dryRun(const std::string& preset, const std::string& tokenizer, PromptMode mode, const std::string& prompt) {
    auto s = std::make_unique<Session>();
    s->load({ModelSource::Kind::Synthetic, preset, SamplingSettings{}.seed, tokenizer}, {.shapesOnly = true});
    s->settings().mode = mode;
    s->settings().prompt = prompt;
    return s;
}
}  // namespace

TEST_CASE("synthetic byte tokenizers follow the preset's family", "[synthetic][tokenizer]") {
    for (const char* preset : {"llama2-7b", "tinyllama-1.1b"}) {
        DYNAMIC_SECTION(preset) {
            const auto s = dryRun(preset, "", PromptMode::Chat, "Hi there");
            const Tokenizer& t = *s->model()->tokenizer;
            CHECK(t.vocabSize() == 32000);
            CHECK(chatFormatFor(t) == ChatFormat::Llama2);
            CHECK(s->promptText() == "<s>[INST] Hi there [/INST]");
            // <s>, then each byte at 3 + byte as in Llama 2's SentencePiece model, a space as "▁" (259).
            const std::vector<int32_t> ids = s->promptTokens();
            CHECK(ids.front() == 1);
            CHECK(std::vector<int32_t>(ids.begin() + 7, ids.begin() + 11) == std::vector<int32_t>{259, 'H' + 3, 'i' + 3, 259});
            CHECK(t.decode(std::span(ids).subspan(1)) == "[INST] Hi there [/INST]");
            CHECK(t.stopIds() == std::vector<int32_t>{2});
        }
    }
    for (const char* preset : {"llama3.1-8b", "tiny"}) {
        DYNAMIC_SECTION(preset) {
            const auto s = dryRun(preset, "", PromptMode::Chat, "Hi");
            CHECK(chatFormatFor(*s->model()->tokenizer) == ChatFormat::Llama3);
            CHECK(s->promptText().starts_with("<|begin_of_text|><|start_header_id|>user<|end_header_id|>"));
        }
    }
}

TEST_CASE("a preset given a tokenizer file gets its real token counts and its family's chat template", "[synthetic][tokenizer]") {
    SECTION("Llama 3's tiktoken tokenizer.model on llama3.1-8b") {
        const auto s = dryRun("llama3.1-8b", referenceTokenizerPath("LLAMA3_TIKTOKEN_MODEL"), PromptMode::Completion,
                                 "The cat sat on the mat");
        // <|begin_of_text|> The cat sat on the mat: 7 tokens, as Llama 3's tokenizer gives them.
        CHECK(s->promptTokens() == std::vector<int32_t>{128000, 791, 8415, 7731, 389, 279, 5634});
        CHECK(chatFormatFor(*s->model()->tokenizer) == ChatFormat::Llama3);
    }
    SECTION("Llama 3's tokenizer.json on llama3.1-8b") {
        const auto s = dryRun("llama3.1-8b", referenceTokenizerPath("LLAMA3_TOKENIZER_JSON"), PromptMode::Completion,
                                 "The cat sat on the mat");
        CHECK(s->promptTokens() == std::vector<int32_t>{128000, 791, 8415, 7731, 389, 279, 5634});
    }
    SECTION("Llama 2's tokenizer.json on llama2-7b: Llama 2's chat template") {
        const auto s = dryRun("llama2-7b", referenceTokenizerPath("LLAMA2_TOKENIZER_JSON"), PromptMode::Chat, "Hi");
        CHECK(chatFormatFor(*s->model()->tokenizer) == ChatFormat::Llama2);
        CHECK(s->promptText() == "<s>[INST] Hi [/INST]");
        CHECK(s->promptTokens().front() == 1);
    }
}

TEST_CASE("a tokenizer of another vocabulary size is refused, naming both sizes", "[synthetic][tokenizer][errors]") {
    const std::string llama3 = referenceTokenizerPath("LLAMA3_TOKENIZER_JSON");
    CHECK_THROWS_WITH(loadModelSource({ModelSource::Kind::Synthetic, "llama2-7b", 1, llama3}, {.shapesOnly = true}),
                      Catch::Contains(llama3 + ": the tokenizer has 128256 tokens, but the synthetic preset 'llama2-7b' has a vocabulary of 32000"));
    const std::string small = std::string(ASSETS_DIR) + "/model/tokenizer.model";
    CHECK_THROWS_WITH(loadModelSource({ModelSource::Kind::Synthetic, "tiny", 1, small}),
                      Catch::Contains("the tokenizer has 4096 tokens, but the synthetic preset 'tiny' has a vocabulary of 768"));
    CHECK_THROWS_WITH(loadModelSource({ModelSource::Kind::Files, std::string(ASSETS_DIR) + "/model", 1, small}),
                      Catch::Contains("--tokenizer is for --synthetic presets"));
    CHECK_THROWS_WITH(loadModelSource({ModelSource::Kind::Synthetic, "tiny", 1, "/nonexistent/tokenizer.json"}),
                      Catch::Contains("tokenizer file '/nonexistent/tokenizer.json' does not exist"));
}
