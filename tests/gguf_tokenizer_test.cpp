// Llama 3's full vocabulary through GGUF's "gpt2" tokenizer metadata: written as llama.cpp
// writes it (byte-level token strings, Hugging Face's merges), read back, and encoding the
// reference cases to the same ids. Needs $LLAMA3_TIKTOKEN_MODEL (tests/fixtures/tokenizer/prepare.sh).
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "formats/gguf/gguf_file.h"
#include "formats/gguf/gguf_tokenizer.h"
#include "formats/gguf/gguf_writer.h"

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
