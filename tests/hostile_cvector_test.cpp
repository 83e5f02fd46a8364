// Issue 46 item 5: control-vector files bounded at load, and `cvector` refusing what it cannot make
// (a zero direction) and reading its prompt files with `batch --prompts-file`'s checks.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "formats/gguf/gguf_control_vector.h"
#include "test_files.h"

using namespace llama;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {
}  // namespace

TEST_CASE("control vectors: values past 1e6, in the file or once scaled and summed, are refused naming file, layer and value",
          "[hostile][cvector]") {
    TempDir dir("llama_hostile_cvector");
    const std::string huge = dir.file("huge.gguf"), strong = dir.file("strong.gguf");
    writeControlVectorFile(huge, {{1, std::vector<float>(64, 0.5f)}, {2, std::vector<float>(64, 1e20f)}}, "llama");
    std::vector<float> big(64, 0.0f);
    big[5] = 3000.0f;
    writeControlVectorFile(strong, {{1, big}}, "llama");
    CHECK_THROWS_WITH(readControlVectorFile(huge), Contains(huge) && Contains("direction.2 (layer 3) element 0 is 1e+20") &&
                                                       Contains("at most 1e6"));
    CHECK_NOTHROW(loadSteering({{strong, 300.0f}}, std::nullopt));  // 9e5
    CHECK_THROWS_WITH(loadSteering({{strong, 1000.0f}}, std::nullopt),
                      Contains(strong + ":1000: direction.1 (layer 2) element 5 is 3000, which scaled adds 3e+06"));
    CHECK_THROWS_WITH(loadSteering({{strong, 300.0f}, {strong, 300.0f}}, std::nullopt), Contains("scaled and summed adds 1.8e+06"));

    // The CLI refuses the file as it reads the option, before any work: no NUL bytes printed, exit 1.
    const CliRun r = runWalkthrough("-q -n 3 --control-vector " + huge);
    CHECK(r.exitCode == 1);
    CHECK_THAT(r.output, Contains("--control-vector: control vector " + huge + ": direction.2 (layer 3) element 0 is 1e+20"));
    CHECK(r.output.find('\0') == std::string::npos);
}

TEST_CASE("cvector: identical prompts are refused naming them - its prompt files have batch's checks", "[hostile][cvector][cli]") {
    TempDir dir("llama_hostile_cvector");
    const std::string same = dir.write("same.txt", "I love this\nwhat a day\n");
    const std::string out = dir.file("out.gguf");
    const CliRun r = runWalkthrough("cvector --positive " + same + " --negative " + same + " -o " + out);
    requireOneClearError(r, "the positive prompts (\"I love this\", \"what a day\") and the negative prompts (\"I love this\", \"what a day\") "
                            "give the same block output");
    CHECK_FALSE(fs::exists(out));

    const std::string good = dir.write("good.txt", "I love this\n");
    for (const auto& [bytes, message] : std::vector<std::pair<std::string, std::string>>{
             {std::string("fine\nbad\0line\n", 14), "line 2 column 4: a NUL byte"},
             {"fine\n\xff\xfe\n", "line 2 column 1: not UTF-8 text"},
             {"\n \n", "no prompt in it"},
         }) {
        const std::string bad = dir.write("bad.txt", bytes);
        INFO(message);
        requireOneClearError(runWalkthrough("cvector --positive " + good + " --negative " + bad + " -o " + out), "prompts file " + bad);
        requireOneClearError(runWalkthrough("cvector --positive " + good + " --negative " + bad + " -o " + out), message);
        CHECK_FALSE(fs::exists(out));
    }
}
