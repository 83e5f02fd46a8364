// Reading llama.cpp's `llama-bench -o json` output, for `bench --llama-bench`.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "llama_bench.h"

using namespace llama::cli;

namespace {
std::string fixture() {
    std::ifstream in(TEST_FIXTURES_DIR "/llama_bench/tiny_bf16_p8_16_n4_r2.json");
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void requireError(const std::string& text, const std::string& expected) {
    try {
        parseLlamaBenchJson(text);
        FAIL("no error for: " << text);
    } catch (const std::runtime_error& e) {
        INFO(e.what());
        CHECK(std::string(e.what()).find(expected) != std::string::npos);
    }
}
}  // namespace

TEST_CASE("llama-bench JSON: prefill and decode tests of a real run are read", "[llama_bench]") {
    LlamaBenchReport report = parseLlamaBenchJson(fixture());
    CHECK(report.buildCommit == "c392e5094");
    REQUIRE(report.tests.size() == 3);
    CHECK(report.tests[0].nPrompt == 8);
    CHECK(report.tests[0].nGen == 0);
    CHECK(report.tests[0].avgTokensPerSecond == Approx(25144.739713));
    CHECK(report.tests[0].stddevTokensPerSecond == Approx(3903.731562));
    CHECK(report.tests[1].nPrompt == 16);
    CHECK(report.tests[1].avgTokensPerSecond == Approx(42745.806396));
    CHECK(report.tests[2].nPrompt == 0);
    CHECK(report.tests[2].nGen == 4);
    CHECK(report.tests[2].avgTokensPerSecond == Approx(5935.185546));
    CHECK(report.tests[2].stddevTokensPerSecond == Approx(173.049119));
}

TEST_CASE("llama-bench JSON: output that is not a list of tests is refused by name", "[llama_bench]") {
    requireError("", "printed nothing");
    requireError("| model | size |", "not valid JSON");
    requireError(R"({"n_prompt": 8})", "not a JSON array of tests");
    requireError("[]", "not a JSON array of tests");
    requireError(R"([{"n_prompt": 8, "n_gen": 0, "stddev_ts": 1.0}])", "test 0 has no number 'avg_ts'");
    requireError(R"([{"n_prompt": 8, "n_gen": 0, "avg_ts": 5, "stddev_ts": 1}, {"n_prompt": "8"}])", "test 1 has no integer 'n_prompt'");
}
