// A context shift as llama.cpp's: the bundled model in F32 (an F32 GGUF written by `convert`),
// a 64-position context and 200 tokens, so the sequence shifts five times; the text must be
// llama-cli's at c392e5094 on the same file (fixtures/context_shift, made by
// scripts/compare-context-shift.py, which says how), character for character.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "formats/gguf/gguf_export.h"
#include "session/session.h"
#include "test_files.h"

using namespace llama;
namespace fs = std::filesystem;

TEST_CASE("batch: a context shift continues the text as llama.cpp's llama-cli does", "[batch][shift][golden]") {
    const fs::path goldens = fs::path(TEST_FIXTURES_DIR) / "context_shift";
    const fs::path f32 = fs::temp_directory_path() / ("llama_context_shift_" + std::to_string(getpid()) + ".gguf");
    {
        Session bundled;
        bundled.load({ModelSource::Kind::Files, std::string(ASSETS_DIR) + "/model"});
        exportGguf(*bundled.model(), DType::F32, f32.string());
    }
    Session session;
    session.load({ModelSource::Kind::Files, f32.string()}, {.maxSeqLen = 64});
    session.settings().maxTokens = 200;
    std::istringstream prompts(readFile(goldens / "prompts.txt"));
    int i = 0;
    for (std::string prompt; std::getline(prompts, prompt); ++i) {
        INFO(prompt);
        // llama-cli's --keep 4 keeps BOS and 4 prompt tokens: our --keep counts BOS.
        const ParallelResult r = session.runParallel({prompt}, {.nParallel = 1, .contextShift = true, .nKeep = 5});
        REQUIRE(r.sequences.size() == 1);
        CHECK(r.sequences[0].contextShifts == 5);
        // The goldens end where llama-cli's output does, without its trailing newlines.
        std::string text = r.sequences[0].text;
        while (!text.empty() && text.back() == '\n') text.pop_back();
        CHECK(text == readFile(goldens / (std::to_string(i) + ".txt")));
    }
    CHECK(i == 3);
    fs::remove(f32);
}

TEST_CASE("batch: after context shifts, each sequence of a batch continues as it does alone", "[batch][shift]") {
    // Three prompts that share only BOS, each given the same share of cells alone and in the batch,
    // so they shift at the same tokens; the batch's cells interleave and the shifts free and move
    // them, yet each sequence's sums are its own in the canonical order (docs/speed.md).
    const std::vector<std::string> prompts = {"And God said", "The LORD is my shepherd", "In the beginning"};
    const int share = 24;
    const ParallelSettings shift{.nParallel = 1, .maxTokens = 60, .contextShift = true, .nKeep = 3};
    std::vector<std::vector<int32_t>> alone;
    for (const std::string& p : prompts) {
        Session session;
        session.load({ModelSource::Kind::Files, std::string(ASSETS_DIR) + "/model"}, {.maxSeqLen = share});
        const ParallelResult r = session.runParallel({p}, shift);
        REQUIRE(r.sequences.size() == 1);
        REQUIRE(r.sequences[0].contextShifts >= 2);
        alone.push_back(r.sequences[0].generatedTokens);
    }
    Session session;
    session.load({ModelSource::Kind::Files, std::string(ASSETS_DIR) + "/model"}, {.maxSeqLen = 1 + 3 * (share - 1)});
    ParallelSettings batch = shift;
    batch.nParallel = 3;
    const ParallelResult r = session.runParallel(prompts, batch);
    REQUIRE(r.positionsPerSequence == share);
    for (size_t i = 0; i < prompts.size(); ++i) {
        INFO(prompts[i]);
        CHECK(r.sequences[i].contextShifts >= 2);
        CHECK(r.sequences[i].generatedTokens == alone[i]);
    }
}
