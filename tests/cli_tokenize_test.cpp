// `llama-walkthrough tokenize`: pieces, merges and ids of the bundled model's tokenizer.
#include <catch2/catch.hpp>

#include "cli_run.h"

TEST_CASE("tokenize: pre-tokenizer pieces, the longest piece's merges, then the ids", "[cli][tokenize]") {
    CliRun r = runWalkthrough("tokenize \"I'll pay 1234 dollars!\"");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(r.output.find("Pre-tokenizer: 8 pieces\n  \"I\" \"'ll\" \" pay\" \" \" \"123\" \"4\" \" dollars\" \"!\"\n") != std::string::npos);
    CHECK(r.output.find("BPE merges for \" dollars\":\n  start: \" \" \"d\" \"o\" \"l\" \"l\" \"a\" \"r\" \"s\"\n") != std::string::npos);
    CHECK(r.output.find("   1. \"l\" + \"l\" -> \"ll\" (rank 275): \" \" \"d\" \"o\" \"ll\" \"a\" \"r\" \"s\"\n") != std::string::npos);
    CHECK(r.output.find("no adjacent pair is a token any more: ids 460 275 1277\n") != std::string::npos);
    CHECK(r.output.find("Token ids: 13 (a run puts the begin-of-text token 3840 in front)") != std::string::npos);
    CHECK(r.output.find("    3490  \" pay\"\n") != std::string::npos);
}

TEST_CASE("tokenize: --word picks the piece, with or without its leading space", "[cli][tokenize]") {
    CliRun r = runWalkthrough("tokenize \"I'll pay 1234 dollars!\" --word pay");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(r.output.find("BPE merges for \" pay\":\n  start: \" \" \"p\" \"a\" \"y\"\n  the whole piece is token 3490: taken as is, no merges") !=
          std::string::npos);
    CliRun missing = runWalkthrough("tokenize \"I'll pay\" --word dollars");
    CHECK(missing.exitCode == 1);
    CHECK(missing.output.find("error: --word 'dollars' is not one of the pieces above") != std::string::npos);
}

TEST_CASE("tokenize: invalid UTF-8 and a missing model are clear errors", "[cli][tokenize]") {
    CliRun bad = runWalkthrough("tokenize \"$(printf 'a\\377b')\"");
    CHECK(bad.exitCode == 1);
    CHECK(bad.output.find("not valid UTF-8: byte 0xFF at byte offset 1") != std::string::npos);
    CliRun noModel = runWalkthrough("tokenize hi --model /nonexistent/dir");
    CHECK(noModel.exitCode == 1);
    CHECK(noModel.output.find("/nonexistent/dir") != std::string::npos);
}
