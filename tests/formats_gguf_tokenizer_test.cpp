// Llama 3's full vocabulary through GGUF's "gpt2" tokenizer metadata: written as llama.cpp
// writes it (byte-level token strings, Hugging Face's merges), read back, and encoding the
// reference cases to the same ids. Needs $LLAMA3_TIKTOKEN_MODEL (tests/fixtures/tokenizer/prepare.sh).
// And a Llama 2 vocabulary through the "llama" metadata.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "formats/gguf/gguf_file.h"
#include "formats/gguf/gguf_tokenizer.h"
#include "formats/gguf/gguf_writer.h"
#include "generate/chat_template.h"
#include "model/synthetic.h"

using namespace llama;

TEST_CASE("Llama 3's vocabulary survives GGUF's gpt2 tokenizer metadata", "[gguf][tokenizer]") {
    const char* model = std::getenv("LLAMA3_TIKTOKEN_MODEL");
    if (!model)
        FAIL("LLAMA3_TIKTOKEN_MODEL is not set. Run tests/fixtures/tokenizer/prepare.sh BUILD_DIR and set "
             "LLAMA3_TIKTOKEN_MODEL=BUILD_DIR/tokenizer.model (needs node + npm).");
    TiktokenTokenizer original(model);
    GgufWriter w;
    addGgufTokenizer(w, original);
    auto path = std::filesystem::temp_directory_path() / ("gguf_tokenizer_test_" + std::to_string(::getpid()) + ".gguf");
    w.write(path.string());
    GgufFile file = GgufFile::open(path.string());
    std::filesystem::remove(path);

    // Hugging Face's Llama 3 tokenizer.json (what llama.cpp copies) has 280,147 merges; ours,
    // derived from the ranks the same way, must have exactly as many, and the same first ones.
    const GgufValue* merges = file.find("tokenizer.ggml.merges");
    REQUIRE(merges);
    CHECK(merges->items.size() == 280147);
    CHECK(merges->items[0].text == "\xC4\xA0 \xC4\xA0");  // "Ġ Ġ": two spaces, rank 256
    CHECK(file.find("tokenizer.ggml.tokens")->items[220].text == "\xC4\xA0");  // id 220 is " "

    auto loaded = loadGgufTokenizer(file);
    REQUIRE(loaded->vocabSize() == 128256);
    CHECK(loaded->bosId() == 128000);
    std::ifstream in(std::string(TEST_FIXTURES_DIR) + "/tokenizer/llama3_cases.json");
    auto cases = nlohmann::json::parse(in);
    for (const auto& c : cases["cases"]) {
        std::string text = c["text"];
        INFO(text);
        std::vector<int32_t> ids = c["ids"];
        REQUIRE(loaded->encode(text, true) == ids);
    }
}

// A synthetic Llama 2 preset's byte vocabulary (what `convert --synthetic llama2-7b` writes) goes
// out as a "llama" vocabulary and reads back as the same tokenizer: same pieces, ids, chat format.
TEST_CASE("a Llama 2 byte vocabulary survives GGUF's llama tokenizer metadata", "[gguf][tokenizer][synthetic]") {
    const auto original = syntheticByteTokenizer(32000, TokenizerFamily::Llama2);
    GgufWriter w;
    addGgufTokenizer(w, dynamic_cast<const SpmScoresTokenizer&>(*original));
    auto path = std::filesystem::temp_directory_path() / ("gguf_tokenizer_test_spm_" + std::to_string(::getpid()) + ".gguf");
    w.write(path.string());
    GgufFile file = GgufFile::open(path.string());
    std::filesystem::remove(path);
    CHECK(file.find("tokenizer.ggml.model")->text == "llama");

    const auto loaded = loadGgufTokenizer(file);
    REQUIRE(loaded->vocabSize() == 32000);
    CHECK(loaded->bosId() == 1);
    CHECK(loaded->stopIds() == std::vector<int32_t>{2});
    CHECK(chatFormatFor(*loaded) == ChatFormat::Llama2);
    for (const char* text : {"Hi there", "[INST] caf\xC3\xA9 [/INST]", "  two  spaces\n"}) {
        INFO(text);
        CHECK(loaded->encode(text) == original->encode(text));
        CHECK(loaded->decode(loaded->encode(text)) == text);
    }
    for (int32_t id : {0, 1, 2, 3, 258, 259, 31999}) CHECK(loaded->decodeToken(id) == original->decodeToken(id));
}
