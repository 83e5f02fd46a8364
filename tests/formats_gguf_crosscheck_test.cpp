// Cross-check with an independent reader: @huggingface/gguf (npm) parses the files our
// writer produces, and must find the same version, metadata (types and values), tensor
// infos and data offset as our reader. Needs node and tests/fixtures/gguf/prepare.sh
// (`make test` runs it); without them this test fails and says so.
#include <catch2/catch.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "formats/gguf/gguf_export.h"
#include "formats/gguf/gguf_file.h"
#include "session/model_source.h"

using namespace llama;
namespace fs = std::filesystem;

namespace {

const fs::path kFixture = fs::path(TEST_FIXTURES_DIR) / "gguf";

std::string run(const std::string& cmd, int& status) {
    FILE* pipe = popen(cmd.c_str(), "r");
    REQUIRE(pipe);
    std::string out;
    char buf[65536];
    while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
    status = pclose(pipe);
    return out;
}

nlohmann::json parseWithNpm(const std::string& file) {
    int status = 0;
    run("node --version > /dev/null 2>&1", status);
    if (status != 0) FAIL("node is not installed: the GGUF cross-check needs node and npm (see tests/fixtures/gguf/prepare.sh)");
    if (!fs::exists(kFixture / "node_modules" / "@huggingface" / "gguf"))
        FAIL("@huggingface/gguf is not installed: run tests/fixtures/gguf/prepare.sh (needs npm), or `make test`");
    std::string out = run("cd '" + kFixture.string() + "' && node parse.mjs '" + file + "' 2>&1", status);
    INFO(out.substr(0, 2000));
    REQUIRE(status == 0);
    return nlohmann::json::parse(out);
}

void compareValue(const GgufValue& ours, const nlohmann::json& theirs, const std::string& where) {
    INFO(where);
    switch (ours.type) {
        case GgufType::String: REQUIRE(theirs.get<std::string>() == ours.text); break;
        case GgufType::Bool: REQUIRE(theirs.get<bool>() == (ours.integer != 0)); break;
        case GgufType::F32:
        case GgufType::F64: REQUIRE(theirs.get<double>() == ours.real); break;
        case GgufType::U64:
        case GgufType::I64:  // 64-bit integers arrive as decimal strings (BigInt) or numbers
            REQUIRE((theirs.is_string() ? theirs.get<std::string>()
                                        : std::to_string(theirs.get<int64_t>())) ==
                    (ours.type == GgufType::U64 ? std::to_string(ours.uinteger) : std::to_string(ours.integer)));
            break;
        case GgufType::Array:
            REQUIRE(theirs.size() == ours.items.size());
            for (size_t i = 0; i < ours.items.size(); ++i) compareValue(ours.items[i], theirs[i], where + "[" + std::to_string(i) + "]");
            break;
        default: REQUIRE(theirs.get<int64_t>() == ours.integer);
    }
}

void crossCheck(const std::string& path) {
    GgufFile ours = GgufFile::open(path);
    nlohmann::json theirs = parseWithNpm(path);
    CHECK(theirs["version"].get<uint32_t>() == ours.version());
    CHECK(theirs["tensor_data_offset"].get<std::string>() == std::to_string(ours.dataOffset()));
    REQUIRE(theirs["metadata"].size() == ours.metadata().size());
    for (const auto& [key, value] : ours.metadata()) {
        INFO("metadata " << key);
        REQUIRE(theirs["metadata"].contains(key));
        const auto& t = theirs["metadata"][key];
        REQUIRE(t["type"].get<uint32_t>() == uint32_t(value.type));
        if (value.type == GgufType::Array) REQUIRE(t["sub_type"].get<uint32_t>() == uint32_t(value.elementType));
        compareValue(value, t["value"], key);
    }
    REQUIRE(theirs["tensors"].size() == ours.tensors().size());
    for (size_t i = 0; i < ours.tensors().size(); ++i) {
        const GgufTensorInfo& o = ours.tensors()[i];
        const auto& t = theirs["tensors"][i];
        INFO("tensor " << o.name);
        CHECK(t["name"].get<std::string>() == o.name);
        std::vector<std::string> ne;
        for (auto it = o.shape.rbegin(); it != o.shape.rend(); ++it) ne.push_back(std::to_string(*it));
        CHECK(t["ne"].get<std::vector<std::string>>() == ne);
        CHECK(t["type"].get<uint32_t>() == o.ggmlType);
        CHECK(t["offset"].get<std::string>() == std::to_string(o.offset));
    }
}

}  // namespace

TEST_CASE("@huggingface/gguf reads our GGUF files as our reader does", "[gguf][crosscheck]") {
    const Model meta = loadModel(std::string(ASSETS_DIR) + "/model");
    for (DType t : {DType::F32, DType::BF16, DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K}) {
        DYNAMIC_SECTION(dtypeName(t)) {
            fs::path path = fs::temp_directory_path() / ("gguf_crosscheck_" + std::to_string(::getpid()) + ".gguf");
            exportGguf(meta, t, path.string());
            crossCheck(path.string());
            fs::remove(path);
        }
    }
}
