// traceBytePairEncode: the merges BPE makes, one at a time, as chapter 8 and
// `llama-walkthrough tokenize` show them; they must end where bytePairEncode ends.
#include <catch2/catch.hpp>

#include <algorithm>

#include "session/model_source.h"
#include "tokenizer/bpe.h"
#include "tokenizer/tiktoken_tokenizer.h"

using namespace llama;

namespace {
// Chapter 8's made-up table; single bytes rank from 100 on.
RankMap chapterTable(bool withWholeWord) {
    RankMap ranks;
    for (int b = 0; b < 256; ++b) ranks[std::string(1, char(b))] = 100 + b;
    ranks[" l"] = 10;
    ranks["ow"] = 12;
    ranks["er"] = 15;
    ranks[" low"] = 20;
    ranks["ower"] = 30;
    if (withWholeWord) ranks[" lower"] = 41;
    return ranks;
}
}  // namespace

TEST_CASE("bpe trace: chapter 8's worked example, merge by merge", "[tokenizer][bpe]") {
    const BpeTrace t = traceBytePairEncode(" lower", chapterTable(false));
    CHECK(t.start == std::vector<std::string>{" ", "l", "o", "w", "e", "r"});
    CHECK_FALSE(t.wholePiece);
    REQUIRE(t.steps.size() == 4);
    CHECK((t.steps[0].left == " " && t.steps[0].right == "l" && t.steps[0].rank == 10));
    CHECK(t.steps[0].parts == std::vector<std::string>{" l", "o", "w", "e", "r"});
    CHECK((t.steps[1].left == "o" && t.steps[1].right == "w" && t.steps[1].rank == 12));
    CHECK((t.steps[2].left == "e" && t.steps[2].right == "r" && t.steps[2].rank == 15));
    CHECK((t.steps[3].left == " l" && t.steps[3].right == "ow" && t.steps[3].rank == 20));
    CHECK(t.steps[3].parts == std::vector<std::string>{" low", "er"});
    CHECK(t.ids == std::vector<int32_t>{20, 15});
}

TEST_CASE("bpe trace: a piece that is a token is taken whole, as Llama 3 does", "[tokenizer][bpe]") {
    const BpeTrace t = traceBytePairEncode(" lower", chapterTable(true));
    CHECK(t.wholePiece);
    CHECK(t.steps.empty());
    CHECK(t.ids == std::vector<int32_t>{41});
    CHECK(traceBytePairEncode("", chapterTable(true)).ids.empty());
}

TEST_CASE("bpe trace: ends with bytePairEncode's ids for every piece of a text (bundled vocabulary)", "[tokenizer][bpe]") {
    const Model m = loadModelSource({ModelSource::Kind::Files, ASSETS_DIR "/model"}, {.shapesOnly = true});
    const auto& tok = dynamic_cast<const TiktokenTokenizer&>(*m.tokenizer);
    const std::string text =
        "In the beginning God created the heaven and the earth. And the earth was without form, and void; "
        "I'll pay 1234 dollars! Unbelievably, tokenization's merges\n\n  happen   here: élan, 東京, 🙂.";
    std::vector<int32_t> joined;
    size_t pieces = 0, merges = 0;
    for (std::string_view piece : tok.pretokenize(text)) {
        ++pieces;
        const BpeTrace t = tok.traceMerges(piece);
        std::string whole;
        for (const auto& p : t.steps.empty() ? t.start : t.steps.back().parts) whole += p;
        CHECK(whole == std::string(piece));
        for (const auto& s : t.steps) CHECK(std::find(s.parts.begin(), s.parts.end(), s.left + s.right) != s.parts.end());
        merges += t.steps.size();
        joined.insert(joined.end(), t.ids.begin(), t.ids.end());
    }
    CHECK(pieces > 30);
    CHECK(merges > 30);
    CHECK(joined == tok.encode(text, false));
}
