// `bench` through the real CLI: several prompt lengths and --profile.
#include <catch2/catch.hpp>

#include "cli_run.h"

#include <regex>
#include <string>

namespace {
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const std::string kFastBench = "bench --prompt-tokens 8,16 --decode-tokens 4 --repeat 1 --threads 2";

}  // namespace

TEST_CASE("CLI bench --profile: time per kind of op, prefill and decode, for several prompt lengths", "[cli][bench]") {
    CliRun r = runWalkthrough("--synthetic tiny " + kFastBench + " --profile");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(contains(r.output, "bench: 8,16 prompt tokens, 4 decode tokens"));
    CHECK(contains(r.output, "prefill (8 tokens): "));
    CHECK(contains(r.output, "prefill (16 tokens): "));
    CHECK(contains(r.output, "where the time goes (--profile)"));
    CHECK(contains(r.output, "RoPE (applyRotaryEmbeddings)"));
    CHECK(contains(r.output, "attentionRepeatKV"));
    CHECK(contains(r.output, "measured wall time"));
    // tiny has 2 layers of 7 weight matrices, plus the output projection: 15 per forward pass, both phases.
    std::smatch m;
    REQUIRE(std::regex_search(r.output, m, std::regex(R"(\nLinearTransformation +[0-9.]+ +[0-9.]+% +([0-9.]+) +[0-9.]+ +[0-9.]+% +([0-9.]+)\n)")));
    CHECK(m[1] == "15.0");
    CHECK(m[2] == "15.0");
}
