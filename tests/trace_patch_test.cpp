// The patch trace (`patch --trace`, trace/patch_trace.h): its grid and both runs read back as
// written, the older formats still read, and a damaged grid is refused naming its field.
#include <fmt/format.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_run.h"
#include "trace/patch_trace.h"

namespace fs = std::filesystem;
using namespace llama;

namespace {
const std::string kClean = "And Moses went unto Aaron. And Aaron said unto", kCorrupt = "And Joseph went unto Aaron. And Aaron said unto";

fs::path temp(const std::string& name) { return fs::temp_directory_path() / fmt::format("llama_patch_trace_{}_{}", getpid(), name); }

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// The patch trace of the Moses/Joseph pair, and its CSV, written once.
const fs::path& mosesTrace() {
    static const fs::path path = [] {
        const fs::path p = temp("moses.trace");
        const auto r = runWalkthrough(fmt::format("patch --clean '{}' --corrupt '{}' --answer ' Moses' --wrong ' Joseph' --trace {} --csv {}", kClean,
                                                  kCorrupt, p.string(), temp("moses.csv").string()));
        INFO(r.output);
        REQUIRE(r.exitCode == 0);
        return p;
    }();
    return path;
}

// `file` with its PTCH record's JSON changed by `edit`.
std::string withGrid(const std::string& file, const std::function<void(nlohmann::json&)>& edit) {
    uint32_t jsonBytes;
    std::memcpy(&jsonBytes, file.data() + 16, 4);
    nlohmann::json j = nlohmann::json::parse(file.substr(28, jsonBytes));
    edit(j);
    const std::string text = j.dump();
    const uint32_t n = uint32_t(text.size());
    std::string out = file.substr(0, 16);
    out.append(reinterpret_cast<const char*>(&n), 4);
    out.append(file.substr(20, 8));
    return out + text + file.substr(28 + jsonBytes);
}

void requirePatchError(const std::string& bytes, const std::string& expected) {
    const fs::path p = temp("bad.trace");
    std::ofstream(p, std::ios::binary) << bytes;
    try {
        readPatchTrace(p.string());
        FAIL("no error; expected " << expected);
    } catch (const TraceError& e) {
        CHECK_THAT(e.what(), Catch::Contains(p.string()) && Catch::Contains(expected));
    }
    fs::remove(p);
}
}  // namespace

TEST_CASE("patch trace: the grid and both runs read back as the table computed them", "[trace][patch]") {
    const PatchTrace t = readPatchTrace(mosesTrace().string());
    CHECK(t.version == trace::kVersion);  // patch traces came in version 3
    CHECK(t.grid.site == "block");
    CHECK(t.grid.stage() == StageId::FfnResidual);
    CHECK(t.grid.align == "same");
    CHECK(t.grid.answer.piece == " Moses");
    CHECK(t.grid.wrong.piece == " Joseph");
    REQUIRE(t.grid.layers == 8);
    REQUIRE(t.grid.columns == 11);  // BOS and 10 tokens
    CHECK(t.clean.run.prompt == kClean);
    CHECK(t.corrupt.run.prompt == kCorrupt);
    CHECK(t.clean.promptTokens.size() == 11u);
    CHECK(t.corrupt.promptTokens[2].piece == " Joseph");
    // Every cell as the CSV has it (6 decimals).
    std::ifstream csv(temp("moses.csv"));
    std::string line;
    std::getline(csv, line);
    int cells = 0;
    while (std::getline(csv, line)) {
        int layer, pos;
        REQUIRE(std::sscanf(line.c_str(), "%d,%d,", &layer, &pos) == 2);
        const double recovered = std::stod(line.substr(line.rfind(',') + 1));
        CHECK(t.grid.recovered(layer - 1, pos) == Approx(recovered).margin(1e-6));
        ++cells;
    }
    CHECK(cells == 8 * 11);
    // Each cell's stage is in both runs, with the residual rows a replay draws.
    for (const TraceRun* run : {&t.clean, &t.corrupt}) {
        int found = 0;
        for (const TracedStage& s : run->stages)
            if (s.stage == StageId::FfnResidual && s.step == 0) {
                const TracedTensor* out = s.tensor("output");
                REQUIRE(out);
                CHECK(out->hasValues());
                CHECK(out->shape[0] == 11);
                ++found;
            }
        CHECK(found == 8);
    }
    // The last block's output at the last position is everything the logits see.
    CHECK(t.grid.recovered(7, 10) == Approx(1.0));
    CHECK(isPatchTrace(mosesTrace().string()));
    fs::remove(temp("moses.csv"));
}

TEST_CASE("patch trace: traces of versions 1 and 2 still read, and each reader refuses the other's file", "[trace][patch]") {
    const std::string corpus = std::string(TEST_FIXTURES_DIR) + "/../fuzz/corpus/";
    const TraceRun v1 = readTrace(corpus + "trace/tiny.trace");
    CHECK(v1.version == 1);
    CHECK_FALSE(v1.stages.empty());
    const TraceRun v2 = readTrace(corpus + "run_page_data/presoftmax.trace");
    CHECK(v2.version == 2);
    CHECK_FALSE(v2.stages.empty());
    CHECK_FALSE(isPatchTrace(corpus + "trace/tiny.trace"));
    try {
        readTrace(mosesTrace().string());
        FAIL("a patch trace read as one run");
    } catch (const TraceError& e) {
        CHECK_THAT(e.what(), Catch::Contains("is an activation-patching trace") && Catch::Contains("not as one to compare with or to diff"));
    }
    try {
        readPatchTrace(corpus + "run_page_data/presoftmax.trace");
        FAIL("a run read as a patch trace");
    } catch (const TraceError& e) {
        CHECK_THAT(e.what(), Catch::Contains("is not an activation-patching trace: its first record is META (version 2)"));
    }
}

TEST_CASE("patch trace: a damaged grid is refused, naming the field", "[trace][patch]") {
    const std::string file = slurp(mosesTrace());
    requirePatchError(withGrid(file, [](auto& j) { j["patchedDiff"].erase(0); }), "field 'patchedDiff' has 7 rows: expected one per layer (8)");
    requirePatchError(withGrid(file, [](auto& j) { j["patchedDiff"][3].erase(0); }), "field 'patchedDiff' row 3 has 10 values: expected 11");
    requirePatchError(withGrid(file, [](auto& j) { j["patchedDiff"][3][2] = "x"; }), "field 'patchedDiff[3][2]' is \"x\": expected a finite number");
    requirePatchError(withGrid(file,
                               [](auto& j) {
                                   j["layers"] = 7;
                                   j["patchedDiff"].erase(0);
                               }),
                      "field 'layers' is 7, but the runs' model has 8 layers");
    requirePatchError(withGrid(file, [](auto& j) { j["corruptPositions"][10] = 11; }),
                      "field 'corruptPositions' column 10 is position 11: the corrupted prompt has 11 tokens");
    requirePatchError(withGrid(file, [](auto& j) { j["site"] = "mlp"; }), "field 'site' is \"mlp\": expected \"block\", \"attention\" or \"head\"");
    requirePatchError(withGrid(file, [](auto& j) { j.erase("cleanDiff"); }), "field 'cleanDiff' is missing");
    requirePatchError(withGrid(file, [](auto& j) { j["site"] = "head"; }), "fields 'cleanPositions' and 'corruptPositions' hold 11 and 11");
    requirePatchError(file.substr(0, file.size() - 100), "is truncated");
    requirePatchError(file + "xx", "2 unexpected bytes after the corrupted run's END record");
}

TEST_CASE("patch trace: a head grid, and prompts of different lengths aligned at their ends", "[trace][patch]") {
    const fs::path heads = temp("heads.trace"), aligned = temp("aligned.trace");
    auto r = runWalkthrough(fmt::format("patch --clean '{}' --corrupt '{}' --answer ' Moses' --wrong ' Joseph' --heads --trace {}", kClean, kCorrupt,
                                        heads.string()));
    REQUIRE(r.exitCode == 0);
    const PatchTrace h = readPatchTrace(heads.string());
    CHECK(h.grid.site == "head");
    CHECK(h.grid.stage() == StageId::AttentionReshape);
    CHECK(h.grid.columns == 8);
    CHECK(h.grid.cleanPosition.empty());
    r = runWalkthrough(fmt::format("patch --clean '{}' --corrupt 'And Joseph the son went unto Aaron. And Aaron said unto' --answer ' Moses' "
                                   "--wrong ' Joseph' --align end --trace {}",
                                   kClean, aligned.string()));
    REQUIRE(r.exitCode == 0);
    const PatchTrace a = readPatchTrace(aligned.string());
    CHECK(a.grid.align == "end");
    CHECK(a.clean.promptTokens.size() == 11u);
    CHECK(a.corrupt.promptTokens.size() == 13u);
    REQUIRE(a.grid.columns == 11);
    CHECK(a.grid.cleanPosition.front() == 0);
    CHECK(a.grid.corruptPosition.front() == 2);
    CHECK(a.grid.corruptPosition.back() == 12);
    CHECK(a.grid.recovered(7, 10) == Approx(1.0));  // the last block's output at the last position
    fs::remove(heads);
    fs::remove(aligned);
}
