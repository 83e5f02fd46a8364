// Llama 2's SentencePiece tokenizer.model: our ids against SentencePiece's own Python binding
// (fixtures/sentencepiece/cases.json, made by make_fixture.py with a model trained with Llama 2's
// settings), the [INST] chat template, and a Meta-layout directory that uses it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "session/model_source.h"
#include "generate/chat_template.h"
#include "llama2_model_dir.h"
#include "tokenizer/sentencepiece_tokenizer.h"

using namespace llama;
using Ids = std::vector<int32_t>;
namespace fs = std::filesystem;

namespace {

const std::string kSentencepieceFixtures = std::string(TEST_FIXTURES_DIR) + "/sentencepiece";

nlohmann::json cases() {
    std::ifstream in(kSentencepieceFixtures + "/cases.json");
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("SentencePiece: ids equal python sentencepiece's on a varied corpus", "[tokenizer][sentencepiece]") {
    const SentencePieceTokenizer tok(kSentencepieceFixtures + "/llama2_style.model");
    const auto c = cases();
    REQUIRE(tok.vocabSize() == c["vocab_size"].get<int32_t>());
    REQUIRE(tok.bosId() == 1);
    REQUIRE(tok.stopIds() == Ids{2});
    REQUIRE(tok.specialId("<s>") == 1);
    for (const auto& k : c["cases"]) {
        const std::string text = k["text"];
        INFO(text);
        const Ids ids = k["ids"];
        REQUIRE(tok.encode(text, true) == ids);
        // SentencePiece puts a "▁" before the text; spaces and bytes come back exactly.
        if (!text.empty()) REQUIRE(tok.decode(ids) == " " + text);
    }
    for (const auto& k : c["chat_cases"]) {
        INFO(k["text"].get<std::string>());
        REQUIRE(tok.encode(k["text"].get<std::string>(), true) == k["ids"].get<Ids>());
    }
}

TEST_CASE("SentencePiece: tokenizer.model is told from tiktoken by its contents", "[tokenizer][sentencepiece]") {
    CHECK(isSentencePieceModel(kSentencepieceFixtures + "/llama2_style.model"));
    CHECK_FALSE(isSentencePieceModel(std::string(TEST_FIXTURES_DIR) + "/tokenizer/tiny.tiktoken"));
    CHECK_FALSE(isSentencePieceModel(std::string(ASSETS_DIR) + "/model/tokenizer.model"));
}

TEST_CASE("Llama 2 chat template: [INST] and <<SYS>> as Meta's reference writes them", "[tokenizer][sentencepiece]") {
    CHECK(formatPrompt(PromptMode::Chat, "You are terse.", "Explain attention in one line.", ChatFormat::Llama2, false).text() ==
          "<s>[INST] <<SYS>>\nYou are terse.\n<</SYS>>\n\nExplain attention in one line. [/INST]");
    CHECK(formatPrompt(PromptMode::Chat, "", "What is RoPE?", ChatFormat::Llama2, false).text() == "<s>[INST] What is RoPE? [/INST]");
    CHECK(formatPrompt(PromptMode::Completion, "", "Once", ChatFormat::Llama2, false).text() == "<s>Once");
}

TEST_CASE("Llama 2 in Meta's layout: SentencePiece tokenizer, vocab_size -1, [INST] template", "[model][sentencepiece]") {
    const fs::path dir = llama2ModelDirectory();
    const Model m = loadModel(dir.string());
    REQUIRE(m.args.vocab_size == 4096);
    REQUIRE(dynamic_cast<const SentencePieceTokenizer*>(m.tokenizer.get()));
    REQUIRE(chatFormatFor(*m.tokenizer) == ChatFormat::Llama2);
    const CliRun r = runWalkthrough("--model " + dir.string() + " --chat -p \"What is RoPE?\" -n 2 -q --debug-log " +
                                    (dir / "debug.log").string());
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    std::ifstream log(dir / "debug.log");
    const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    // BOS <s> = 1, then "[INST] What is RoPE? [/INST]" as SentencePiece encodes it.
    std::string expected = "Tokenized the prompt into";
    const Ids ids = cases()["chat_cases"][0]["ids"];
    expected += " " + std::to_string(ids.size()) + " tokens:";
    for (int32_t id : ids) expected += " " + std::to_string(id);
    CHECK(text.find(expected) != std::string::npos);
    // A dry run reads the same tokenizer.model.
    const CliRun dry = runWalkthrough("--model " + dir.string() + " --dry-run -p hi -n 1 -q");
    INFO(dry.output);
    CHECK(dry.exitCode == 0);
}
