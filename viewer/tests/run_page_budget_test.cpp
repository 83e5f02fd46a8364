// A long run's page within its size budget (issue 35, item 13): the attention arithmetic of the
// prefill first, then the decode steps, as far as the budget allows; the page says what it left
// out and how to get it; bfloat16 numbers embedded in half the bytes, exactly.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <bit>
#include <filesystem>

#include "cli_run.h"
#include "io/base64.h"
#include "page/run_page.h"

using namespace llama;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

// A 60-token prompt and 6 generated tokens, with every attention cell's inputs.
const std::string& longTrace() {
    static const std::string path = [] {
        const fs::path dir = fs::temp_directory_path() / ("llama_page_budget_" + std::to_string(getpid()));
        fs::create_directories(dir);
        const std::string p = (dir / "long.trace").string();
        std::string prompt;
        for (int i = 0; i < 12; ++i) prompt += "And God said, Let there be light. ";
        const CliRun r = runWalkthrough("--model " ASSETS_DIR "/model -p '" + prompt + "' -n 6 -q --trace-presoftmax --trace " + p);
        REQUIRE(r.exitCode == 0);
        return p;
    }();
    return path;
}

}  // namespace

TEST_CASE("run page: bfloat16 values are embedded as their high halves, float32 ones whole", "[page][budget]") {
    const nlohmann::json bf16 = page::floatArray({1.0f, -0.5f, 0.0f, -INFINITY, 3.140625f});
    CHECK(bf16["dtype"] == "bf16");
    CHECK(bf16["b64"].get<std::string>().size() == 16);  // 10 bytes in base64
    const std::vector<uint16_t> halves = {0x3f80, 0xbf00, 0x0000, 0xff80, 0x4049};
    CHECK(bf16["b64"] == llama::encodeBase64(halves.data(), halves.size() * 2));
    const nlohmann::json f32 = page::floatArray({1.0f, 0.1f});
    CHECK(f32["dtype"] == "f32");
    CHECK(f32["n"] == 2);
}

TEST_CASE("run page: past its budget a page keeps the prefill's arithmetic first and says how to get the rest", "[page][budget]") {
    auto run = std::make_shared<const TraceRun>(readTrace(longTrace()));
    const nlohmann::json all = page::runPageData(run, {.tracePath = longTrace(), .budgetBytes = 0});
    const size_t attentions = all["attention"].size();
    REQUIRE(attentions == size_t(run->args.n_layers) * 6);  // every layer at the prefill and 5 decode steps
    CHECK(all["arithmetic"]["kept"] == attentions);
    CHECK(all["arithmetic"]["leftOut"] == 0);
    CHECK(page::arithmeticNote(all).empty());
    const size_t whole = all.dump().size();

    // A budget that holds the page without arithmetic and part of it.
    nlohmann::json bare = all;
    for (auto& a : bare["attention"]) a.erase("arith");
    const size_t budget = bare.dump().size() + (whole - bare.dump().size()) / 2;
    const nlohmann::json part = page::runPageData(run, {.tracePath = longTrace(), .budgetBytes = budget});
    CHECK(part.dump().size() <= budget);
    const int kept = part["arithmetic"]["kept"], leftOut = part["arithmetic"]["leftOut"];
    CHECK(kept > 0);
    CHECK(leftOut > 0);
    CHECK(kept + leftOut == int(attentions));
    // What is kept is the prefill's layers in order, then whole decode steps as they fit: no kept
    // attention comes after one left out in reading order, except smaller ones that still fit.
    bool prefillLayer1 = false;
    for (const auto& a : part["attention"]) {
        CHECK(a.contains("arith") != a.value("arithLeftOut", false));
        if (a["step"] == 0 && a["layer"] == 0) prefillLayer1 = a.contains("arith");
        // The same numbers as the unlimited page where kept.
        if (a.contains("arith")) {
            for (const auto& b : all["attention"])
                if (b["step"] == a["step"] && b["layer"] == a["layer"]) CHECK(b["arith"] == a["arith"]);
        }
    }
    CHECK(prefillLayer1);
    CHECK_THAT(page::arithmeticNote(part), Contains(std::to_string(kept) + " of the " + std::to_string(attentions)) &&
                                               Contains("export-html long.trace --page-budget 0"));
    // The note names the trace by its file name, never the machine's folders.
    CHECK(part["arithmetic"]["allOf"].get<std::string>().find(fs::temp_directory_path().string()) == std::string::npos);
}

TEST_CASE("export-html: --page-budget keeps the page within it and prints what was left out", "[page][budget]") {
    const fs::path out = fs::path(longTrace()).parent_path() / "small.html";
    const CliRun r = runWalkthrough("export-html " + longTrace() + " --page-budget 5 --out " + out.string());
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(fs::file_size(out) <= 5'000'000);
    CHECK_THAT(r.output, Contains("to stay within 5 MB") && Contains("--page-budget 0"));
    const CliRun bad = runWalkthrough("export-html " + longTrace() + " --page-budget -1 --out " + out.string());
    CHECK(bad.exitCode != 0);
    CHECK_THAT(bad.output, Contains("--page-budget"));
}
