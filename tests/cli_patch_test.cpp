// `patch`: activation patching over layers and positions. What must hold whatever the model:
// positions before the prompts first differ carry identical activations (nothing to recover),
// the last layer's output at the last position is all the logits see (everything recovered), and
// a later position cannot change an earlier one.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "cli_run.h"

namespace fs = std::filesystem;

namespace {
const std::string kPatch =
    "patch --clean 'And Moses went unto Aaron. And Aaron said unto' --corrupt 'And Joseph went unto Aaron. And Aaron said unto' --answer ' Moses' --wrong ' Joseph'";

// The CSV's rows: layer, position -> recovered.
std::map<std::pair<int, int>, double> readCsv(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    REQUIRE(line == "layer,position,clean_token,corrupt_token,patched_logit_diff,recovered");
    std::map<std::pair<int, int>, double> out;
    while (std::getline(in, line)) {
        std::vector<std::string> cells;
        std::stringstream s(line);
        for (std::string cell; std::getline(s, cell, ',');) cells.push_back(cell);
        REQUIRE(cells.size() == 6);
        out[{std::stoi(cells[0]), std::stoi(cells[1])}] = std::stod(cells[5]);
    }
    return out;
}
}  // namespace

TEST_CASE("CLI patch: recovered where it must be, nothing where it cannot be", "[cli][patch]") {
    const auto csv = fs::temp_directory_path() / ("llama_patch_" + std::to_string(getpid()) + ".csv");
    for (const std::string site : {"block", "attention"}) {
        DYNAMIC_SECTION(site) {
            auto r = runWalkthrough(kPatch + " --site " + site + " --csv " + csv.string());
            REQUIRE(r.exitCode == 0);
            CHECK_THAT(r.output, Catch::Contains("corrupt: logit \" Moses\" - logit \" Joseph\" = "));
            const auto rows = readCsv(csv.string());
            REQUIRE(rows.size() == 8u * 11u);  // 8 layers x BOS and 10 tokens
            for (int layer = 1; layer <= 8; ++layer) {
                INFO("layer " << layer);
                for (int pos = 0; pos < 2; ++pos) CHECK(rows.at({layer, pos}) == 0.0);  // before " Moses"/" Joseph"
            }
            if (site == "block") {
                CHECK(rows.at({8, 10}) == Approx(1.0));  // the last block's output at the last position: the logits' input
                for (int pos = 0; pos < 10; ++pos) CHECK(rows.at({8, pos}) == 0.0);
            }
        }
    }
    fs::remove(csv);
}

TEST_CASE("CLI patch --heads: a layer x head table and CSV", "[cli][patch]") {
    const auto csv = fs::temp_directory_path() / ("llama_patch_heads_" + std::to_string(getpid()) + ".csv");
    auto r = runWalkthrough(kPatch + " --heads --csv " + csv.string());
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.output, Catch::Contains("layer  head 1  head 2  head 3  head 4  head 5  head 6  head 7  head 8"));
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    CHECK(line == "layer,head,patched_logit_diff,recovered");
    int rows = 0;
    while (std::getline(in, line)) ++rows;
    CHECK(rows == 8 * 8);
    fs::remove(csv);
}

TEST_CASE("CLI patch: without --wrong, the answer competes with the corrupted prompt's favourite token", "[cli][patch]") {
    auto r = runWalkthrough("patch --clean 'And Moses went unto Aaron. And Aaron said unto' --corrupt 'And Joseph went unto Aaron. And Aaron said unto' "
                            "--answer ' Moses'");
    REQUIRE(r.exitCode == 0);
    auto top = runWalkthrough("-q -n 1 -p 'And Joseph went unto Aaron. And Aaron said unto'");
    REQUIRE(top.exitCode == 0);
    const std::string favourite = top.output.substr(0, top.output.find('\n'));  // the greedy token's text
    CHECK_THAT(r.output, Catch::Contains("corrupt: logit \" Moses\" - logit \"" + favourite + "\" = "));
}

TEST_CASE("CLI patch: prompts of different lengths and answers of several tokens are refused", "[cli][patch][hostile]") {
    const auto csv = fs::temp_directory_path() / ("llama_patch_bad_" + std::to_string(getpid()) + ".csv");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"patch --clean 'And Moses went unto Aaron.' --corrupt 'And Moses went unto Aaron and Hur.' --answer ' Moses'",
         "the clean prompt is 7 tokens and the corrupted one 10"},
        {"patch --clean 'And Moses went' --corrupt 'And Joseph went' --answer ' Obed'", "--answer \" Obed\" is 2 tokens"},
        {"patch --clean 'And Moses went' --corrupt 'And Joseph went' --answer ' Moses' --wrong ' Moses'", "--answer and --wrong are the same token"},
        {"patch --clean 'And Moses went' --corrupt 'And Moses went' --answer ' unto' --wrong ' up'", "nothing to recover"},
        {kPatch + " --site head", "--site: head not in {block,attention}"},
    };
    for (const auto& [args, message] : cases) {
        DYNAMIC_SECTION(args) {
            fs::remove(csv);
            auto r = runWalkthrough(args + " --csv " + csv.string());
            CHECK(r.exitCode == 1);
            CHECK_THAT(r.output, Catch::Contains(message));
            CHECK_FALSE(fs::exists(csv));
        }
    }
}

TEST_CASE("CLI patch --align: prompts of different token counts pair from the start or from the end", "[cli][patch]") {
    // " Joseph the son" is three tokens where " Moses" is one: 13 tokens against 11.
    const std::string prompts = "patch --clean 'And Moses went unto Aaron. And Aaron said unto' --corrupt 'And Joseph the son went unto Aaron. And Aaron "
                                "said unto' --answer ' Moses' --wrong ' Joseph'";
    auto refused = runWalkthrough(prompts + " 2>&1");
    CHECK(refused.exitCode == 1);
    CHECK_THAT(refused.output, Catch::Contains("the clean prompt is 11 tokens and the corrupted one 13") && Catch::Contains("--align start|end"));
    const auto csv = fs::temp_directory_path() / ("llama_patch_align_" + std::to_string(getpid()) + ".csv");
    for (const std::string align : {"start", "end"}) {
        DYNAMIC_SECTION(align) {
            auto r = runWalkthrough(prompts + " --align " + align + " --csv " + csv.string());
            REQUIRE(r.exitCode == 0);
            const auto rows = readCsv(csv.string());
            REQUIRE(rows.size() == 8u * 11u);  // the shorter prompt's positions, each paired once
            if (align == "start") {
                // BOS and "And" are the same tokens at the same positions: nothing to recover.
                for (int layer = 1; layer <= 8; ++layer) {
                    CHECK(rows.at({layer, 0}) == 0.0);
                    CHECK(rows.at({layer, 1}) == 0.0);
                }
                CHECK(rows.count({1, 12}) == 0);  // the corrupted prompt's last two positions are not patched
            } else {
                CHECK_THAT(r.output, Catch::Contains("Columns pair clean position 0.. with corrupted position 2.."));
                CHECK(rows.at({8, 12}) == Approx(1.0));  // the last block's output at the last position: the logits' input
                CHECK(rows.count({1, 0}) == 0);           // the corrupted prompt's first two positions are not patched
            }
        }
    }
    fs::remove(csv);
}
