// The scores-driven SentencePiece BPE of GGUF's "llama" vocabulary on a hand-made vocabulary,
// every expected id worked out by hand from the merge rule (highest score first, leftmost on
// ties), and the same vocabulary read from GGUF metadata.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "formats/gguf/gguf_file.h"
#include "formats/gguf/gguf_tokenizer.h"
#include "formats/gguf/gguf_writer.h"
#include "tokenizer/spm_scores_tokenizer.h"

using namespace llama;

namespace {

using T = SpmScoresTokenizer;
struct Vocab {
    std::vector<std::string> pieces;
    std::vector<float> scores;
    std::vector<int32_t> types;
};

Vocab handMade() {
    Vocab v;
    auto add = [&](std::string p, float s, int32_t t) {
        v.pieces.push_back(std::move(p));
        v.scores.push_back(s);
        v.types.push_back(t);
    };
    add("<unk>", 0, T::Unknown);                                                    // 0
    add("<s>", 0, T::Control);                                                      // 1
    add("</s>", 0, T::Control);                                                     // 2
    add("<0x21>", 0, T::Byte);                                                      // 3 "!"
    add("<0xC3>", 0, T::Byte);                                                      // 4
    add("<0xA9>", 0, T::Byte);                                                      // 5 (é = C3 A9)
    add("\xE2\x96\x81", -1, T::Normal);                                             // 6 "▁"
    for (const char* c : {"h", "e", "l", "o"}) add(c, -2, T::Normal);               // 7..10
    add("ll", -1.5f, T::Normal);                                                    // 11
    add("he", -1.8f, T::Normal);                                                    // 12
    add("llo", -1.0f, T::Normal);                                                   // 13
    add("\xE2\x96\x81h", -1.2f, T::Normal);                                         // 14 "▁h"
    for (const char* c : {"a", "b", "c"}) add(c, -3, T::Normal);                    // 15..17
    add("ab", -1, T::Normal);                                                       // 18
    add("bc", -1, T::Normal);                                                       // 19
    return v;
}

SpmScoresTokenizer scoresTokenizer() {
    Vocab v = handMade();
    return SpmScoresTokenizer(v.pieces, v.scores, v.types, 1, {2}, true);
}

}  // namespace

TEST_CASE("SPM scores tokenizer merges by score", "[tokenizer][spm]") {
    auto t = scoresTokenizer();
    // "▁hello": ▁h (-1.2) first, then ll (-1.5), then llo (-1.0, queued once ll exists); "he"
    // lost its h to ▁h, and ▁h+e / e+llo are not pieces.
    CHECK(t.encode("hello") == std::vector<int32_t>{14, 8, 13});
    // ab and bc tie at -1: the leftmost wins, c stays alone.
    CHECK(t.encode("abc") == std::vector<int32_t>{6, 18, 17});
    // é has no piece: its bytes; ! also falls back to its byte token; z has neither: <unk>.
    CHECK(t.encode("h\xC3\xA9!") == std::vector<int32_t>{14, 4, 5, 3});
    CHECK(t.encode("z") == std::vector<int32_t>{6, 0});
    // Special tokens: split out, and a "▁" is put in front of the text after them.
    CHECK(t.encode("<s>hello</s>") == std::vector<int32_t>{1, 14, 8, 13, 2});
    CHECK(t.encode("<s>hello", false) == std::vector<int32_t>{6, 0, 0, 0, 12, 13});
    CHECK(t.encode("").empty());
}

TEST_CASE("SPM scores tokenizer decodes pieces, bytes and specials", "[tokenizer][spm]") {
    auto t = scoresTokenizer();
    CHECK(t.decodeToken(14) == " h");
    CHECK(t.decodeToken(4) == "\xC3");
    CHECK(t.decode(std::vector<int32_t>{14, 4, 5, 3}) == " h\xC3\xA9!");
    CHECK(t.decodeToken(1) == "<s>");
    CHECK(t.isSpecial(2));
    CHECK_FALSE(t.isSpecial(6));
    CHECK(t.specialId("</s>") == 2);
    CHECK(t.bosId() == 1);
    CHECK(t.stopIds() == std::vector<int32_t>{2});
    CHECK_THROWS_WITH(SpmScoresTokenizer({"a"}, {0, 1}, {1}, 0, {0}, true), Catch::Contains("1 pieces but 2 scores"));
    // A piece that can be merged needs a score that orders it.
    CHECK_THROWS_WITH(SpmScoresTokenizer({"<s>", "a"}, {0, std::nanf("")}, {T::Control, T::Normal}, 0, {0}, true),
                      Catch::Contains("piece 1 has a score that is not a number"));
}

TEST_CASE("GGUF 'llama' tokenizer metadata gives the SPM scores tokenizer", "[tokenizer][spm][gguf]") {
    Vocab v = handMade();
    GgufWriter w;
    w.add("tokenizer.ggml.model", GgufValue::ofString("llama"));
    w.add("tokenizer.ggml.tokens", GgufValue::ofStrings(v.pieces));
    w.add("tokenizer.ggml.scores", GgufValue::ofF32s(v.scores));
    w.add("tokenizer.ggml.token_type", GgufValue::ofI32s(v.types));
    w.add("tokenizer.ggml.bos_token_id", GgufValue::ofU32(1));
    w.add("tokenizer.ggml.eos_token_id", GgufValue::ofU32(2));
    auto path = std::filesystem::temp_directory_path() / ("spm_scores_test_" + std::to_string(::getpid()) + ".gguf");
    w.write(path.string());
    GgufFile file = GgufFile::open(path.string());
    std::filesystem::remove(path);
    auto t = loadGgufTokenizer(file);
    CHECK(t->encode("<s>hello") == std::vector<int32_t>{1, 14, 8, 13});
    CHECK(t->bosId() == 1);
    CHECK(t->stopIds() == std::vector<int32_t>{2});
}
