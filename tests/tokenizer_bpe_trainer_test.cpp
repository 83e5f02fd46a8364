// Learning a byte-level BPE (tokenizer/bpe_trainer.h) as assets/train_tokenizer.py learns it, and
// `llama-walkthrough tokenizer-train`. The expected merges are the reference's own:
// tests/fixtures/tokenizer/train_reference_merges.py TEXT runs train_tokenizer.py unchanged on TEXT
// and prints its ranks from 256 on. The whole bundled corpus is checked byte for byte by CTest
// (tokenizer_train_kjv_test.sh).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "cli_run.h"
#include "tokenizer/bpe_trainer.h"
#include "tokenizer/tiktoken_file.h"

using namespace llama;
using Tokens = std::vector<std::string>;

namespace {

// The learned tokens, from rank 256 on.
Tokens merged(const std::string& text, size_t vocabSize = 1 << 20) {
    const Tokens tokens = trainBpe(countPieces(text), vocabSize);
    return {tokens.begin() + 256, tokens.end()};
}

// A file of its own for each test process (ctest runs them in parallel).
std::string tempPath(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("llama_bpe_train_" + std::to_string(getpid()) + "_" + name)).string();
}

std::string written(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

}  // namespace

TEST_CASE("BPE training: the pieces are counted once each, in order of first occurrence", "[tokenizer][bpe-train]") {
    const std::vector<CountedPiece> pieces = countPieces("the cat, the cat\n");
    REQUIRE(pieces.size() == 5);
    CHECK((pieces[0].bytes == "the" && pieces[0].count == 1));
    CHECK((pieces[1].bytes == " cat" && pieces[1].count == 2));
    CHECK((pieces[2].bytes == "," && pieces[2].count == 1));
    CHECK((pieces[3].bytes == " the" && pieces[3].count == 1));
    CHECK((pieces[4].bytes == "\n" && pieces[4].count == 1));  // the pieces cover the text
}

TEST_CASE("BPE training: a small text's merges, worked out by hand, are the reference's", "[tokenizer][bpe-train]") {
    // Pieces: "the", " the" x2, " cat", " sat", " on", " mat", ",", " end". (a,t), (t,h) and (h,e)
    // occur 3 times: "at" first (97,116 is the smallest pair), then "he" (104,101 before 116,104),
    // then (t,he) 3 times, (" ",the) twice; then every pair occurs once and the smallest first id
    // goes first: " c" " e" " m" " o" " s" (32, then c e m o s), "nd" (110,100), and the words.
    const Tokens expected = {"at", "he", "the", " the", " c", " e", " m", " o", " s", "nd", " cat", " end", " mat", " on", " sat"};
    CHECK(merged("the cat sat on the mat, the end") == expected);
}

TEST_CASE("BPE training: ties go to the smallest (left, right) ids, new tokens included", "[tokenizer][bpe-train]") {
    // "abac": (a,b), (b,a), (a,c) once each: (97,98) first; then (ab,a) = (256,97) and (a,c) =
    // (97,99) once each: (a,c) first, though "ab" was made earlier; then (ab,ac). The reference
    // prints ab, ac, abac.
    CHECK(merged("abac") == Tokens{"ab", "ac", "abac"});
    // A higher count wins whatever the ids: (z,z) is in " zzz" twice (overlapping; merged once, left
    // to right), (a,b) and (" ",z) once. Then (" ",zz) = (32,256) goes before (a,b) = (97,98).
    CHECK(merged("ab zzz") == Tokens{"zz", " zz", "ab", " zzz"});
}

TEST_CASE("BPE training: merged bytes are always a new token (the reference's reuse of an id never happens)",
          "[tokenizer][bpe-train]") {
    // Runs of one letter are where a span could be split two ways (overlapping pairs merge left to
    // right); trained to the end, every rank is new bytes and the file reads back.
    std::string text;
    for (int n = 1; n <= 40; ++n) text += std::string(size_t(n), "ab"[n % 2]) + std::string(size_t(n % 7 + 1), 'a') + " ";
    const Tokens tokens = trainBpe(countPieces(text), 1 << 20);
    REQUIRE(tokens.size() > 300);
    std::stringstream file;
    writeTiktokenRanks(file, tokens);
    CHECK(readTiktokenRanks(file, "trained") == tokens);
}

TEST_CASE("BPE training: the observer sees each merge - the vocabulary size stops it", "[tokenizer][bpe-train]") {
    std::vector<BpeMerge> seen;
    const Tokens tokens = trainBpe(countPieces("the cat sat on the mat, the end"), 259,
                                   [&](const BpeMerge& m, const Tokens& all) {
                                       CHECK(all.size() == size_t(m.id) + 1);
                                       seen.push_back(m);
                                   });
    REQUIRE(tokens.size() == 259);
    REQUIRE(seen.size() == 3);
    CHECK((seen[0].index == 0 && seen[0].left == 'a' && seen[0].right == 't' && seen[0].id == 256 && seen[0].count == 3));
    CHECK((seen[2].index == 2 && seen[2].left == 't' && seen[2].right == 257 && seen[2].id == 258 && seen[2].count == 3));
    CHECK(trainBpe(countPieces("abc"), 256).size() == 256);
    CHECK(trainBpe(countPieces("abc"), 4000).size() == 258);  // ab, abc: nothing is left to merge
}

TEST_CASE("tiktoken file: written as tiktoken writes it, base64 padding included", "[tokenizer][bpe-train]") {
    Tokens tokens;
    for (int b = 0; b < 256; ++b) tokens.push_back(std::string(1, char(b)));
    tokens.push_back("ab");
    tokens.push_back(" the");
    std::ostringstream out;
    writeTiktokenRanks(out, tokens);
    const std::string text = out.str();
    CHECK(text.substr(0, 9) == "AA== 0\nAQ");
    CHECK(text.find("YQ== 97\n") != std::string::npos);
    CHECK(text.substr(text.size() - 22) == "YWI= 256\nIHRoZQ== 257\n");
}

TEST_CASE("tokenizer-train: learns a text's merges, shows them, writes the file", "[cli][tokenizer-train]") {
    const std::string text = written(tempPath("small.txt"), "the cat sat on\f\nthe mat, the end");
    const std::string out = tempPath("small.model");
    std::filesystem::remove(out);
    CliRun r = runWalkthrough("tokenizer-train --text " + text + " --out " + out + " --vocab 265 --show-merges 2");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(r.output.find(": 8 pieces, 8 distinct\n") != std::string::npos);  // "\f\n" dropped: " onthe" one piece
    CHECK(r.output.find("merge 1: \"a\" + \"t\" -> \"at\", rank 256, count 3\n"
                        "merge 2: \"h\" + \"e\" -> \"he\", rank 257, count 3\n") != std::string::npos);
    CHECK(r.output.find("merge 3:") == std::string::npos);
    CHECK(r.output.find("Wrote 265 ranks to " + out) != std::string::npos);
    CHECK(loadTiktokenRanks(out).size() == 265);
    std::filesystem::remove(text);
    std::filesystem::remove(out);
}

TEST_CASE("tokenizer-train: --step pauses after each merge - c learns the rest", "[cli][tokenizer-train]") {
    const std::string text = written(tempPath("step.txt"), "abac");
    const std::string out = tempPath("step.model");
    std::filesystem::remove(out);
    CliRun r = runWalkthrough("tokenizer-train --text " + text + " --out " + out + " --vocab 259 --step", std::string("\nx\nc\n"));
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(r.output.find("merge 1: \"a\" + \"b\" -> \"ab\", rank 256, count 1\nmerge> \n"
                        "merge 2: \"a\" + \"c\" -> \"ac\", rank 257, count 1\nmerge> x\nEnter: the next merge; c: learn the rest "
                        "without stopping\nmerge> c\nWrote 259 ranks") != std::string::npos);
    std::filesystem::remove(text);
    std::filesystem::remove(out);
}

TEST_CASE("tokenizer-train: bad input is refused, naming the file and what was expected", "[cli][tokenizer-train]") {
    const std::string out = tempPath("refused.model");
    std::filesystem::remove(out);
    const std::string missing = tempPath("missing.txt");
    requireOneClearError(runWalkthrough("tokenizer-train --text " + missing + " --out " + out), "cannot open training text '" + missing + "'");
    const std::string empty = written(tempPath("empty.txt"), "");
    requireOneClearError(runWalkthrough("tokenizer-train --text " + empty + " --out " + out),
                         "training text '" + empty + "' is empty; expected UTF-8 text");
    const std::string bad = written(tempPath("bad.txt"), "caf\xC3\xA9 \xFF");
    requireOneClearError(runWalkthrough("tokenizer-train --text " + bad + " --out " + out),
                         "training text '" + bad + "' is not valid UTF-8: byte 0xFF at byte offset 6");
    const std::string small = written(tempPath("few.txt"), "abc abd");
    requireOneClearError(runWalkthrough("tokenizer-train --text " + small + " --out " + out + " --vocab 300"),
                         "--vocab 300: '" + small + "' gives only 260 ranks (then no piece has two tokens left); nothing written");
    CHECK_FALSE(std::filesystem::exists(out));
    CliRun tooSmall = runWalkthrough("tokenizer-train --text " + small + " --out " + out + " --vocab 255");
    CHECK(tooSmall.exitCode == 1);
    CHECK(tooSmall.output.find("--vocab: expected a rank count from 256 (the single bytes)") != std::string::npos);
    written(out, "keep me");
    requireOneClearError(runWalkthrough("tokenizer-train --text " + small + " --out " + out + " --vocab 256"),
                         "--out '" + out + "' exists; --force replaces it");
    CHECK(runWalkthrough("tokenizer-train --text " + small + " --out " + out + " --vocab 256 --force").exitCode == 0);
    CHECK(loadTiktokenRanks(out).size() == 256);
    for (const std::string& f : {empty, bad, small, out}) std::filesystem::remove(f);
}
