// Hostile and mistaken input found by a run of a few hundred bad inputs: each is refused with
// exit code 1 (or a thrown error) and a message naming the file, field or flag, never a crash,
// a gigabyte allocation or silent acceptance.
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "formats/hf/hf_config.h"
#include "formats/meta/params_json.h"
#include "formats/meta/pickle.h"
#include "formats/model_loader.h"
#include "tokenizer/hf_tokenizer.h"

using namespace llama;
using Catch::Contains;
namespace fs = std::filesystem;

// Sanitizer builds: GCC says so with __SANITIZE_*__, clang 14 only through __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LLAMA_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define LLAMA_TEST_SANITIZED 1
#endif
#endif

namespace {

std::string writeTemp(const std::string& name, const std::string& text) {
    const fs::path p = fs::temp_directory_path() / ("llama_hostile_" + std::to_string(getpid()) + "_" + name);
    std::ofstream(p) << text;
    return p.string();
}

std::string paramsWith(const std::string& extra) {
    return R"({"dim": 64, "n_layers": 2, "n_heads": 4, "vocab_size": 100)" + extra + "}";
}

}  // namespace

TEST_CASE("params.json: numbers outside any Llama's range are refused by name", "[hostile][args]") {
    CHECK_THROWS_WITH(loadParamsJson(writeTemp("huge_dim.json", R"({"dim": 2.56e74, "n_layers": 2, "n_heads": 4, "vocab_size": 10})")),
                      Contains("field 'dim'") && Contains("whole number"));
    CHECK_THROWS_WITH(loadParamsJson(writeTemp("layers.json", R"({"dim": 64, "n_layers": 1000000000, "n_heads": 4, "vocab_size": 10})")),
                      Contains("'n_layers' is 1000000000: expected 1 to 1024"));
    CHECK_THROWS_WITH(loadParamsJson(writeTemp("ffn_neg.json", paramsWith(R"(, "ffn_dim_multiplier": -1.3)"))),
                      Contains("'ffn_dim_multiplier' is -1.3"));
    CHECK_THROWS_WITH(loadParamsJson(writeTemp("ffn_big.json", paramsWith(R"(, "ffn_dim_multiplier": 1e12)"))),
                      Contains("'ffn_dim_multiplier' is 1000000000000"));
    CHECK_THROWS_WITH(loadParamsJson(writeTemp("theta.json", paramsWith(R"(, "rope_theta": -5)"))), Contains("'rope_theta' is -5"));
}

TEST_CASE("config.json: errors use config.json's own keys", "[hostile][args]") {
    const std::string path = writeTemp("config.json", R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 0,
        "vocab_size": 100, "intermediate_size": 128})");
    CHECK_THROWS_WITH(loadHfConfig(path), Contains("'num_attention_heads' is 0") && !Contains("'n_heads'"));
    const std::string ctx = writeTemp("ctx.json", R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "vocab_size": 100, "intermediate_size": 128, "max_position_embeddings": 2147483647})");
    CHECK_THROWS_WITH(loadHfConfig(ctx), Contains("'max_position_embeddings' is 2147483647: expected 1 to 16777216"));
}

TEST_CASE("CLI: bad flag values are refused with readable ranges", "[hostile][cli]") {
    struct Case {
        const char* args;
        const char* message;
    };
    for (const auto& [args, message] : {Case{"--temperature nan", "temperature nan is outside 0 to 100"},
                                        Case{"--threads 1000", "not in range 1 to"},
                                        Case{"--max-seq-len 1073741824", "not in range 1 to 16777216"},
                                        Case{"--top-k -1", "not in range 0 to 4194304"}}) {
        INFO(args);
        const CliRun r = runWalkthrough(std::string(args) + " -n 1 -q");
        CHECK(r.exitCode != 0);
        CHECK_THAT(r.output, Contains(message));
        CHECK(r.output.size() < 300);  // no 300-digit maximum
    }
}

TEST_CASE("CLI: a context the memory cannot hold is refused before allocating", "[hostile][cli]") {
#if LLAMA_TEST_SANITIZED
    // A sanitizer's shadow memory cannot be mapped under an address-space limit: ask instead for
    // the most positions allowed, about 42 GB for the bundled model, more than this project's
    // 24 GB machines have.
    const std::string command = std::string(WALKTHROUGH_EXE) + " --max-seq-len 16777216 -n 1 -q 2>&1; echo exit=$?";
    const char* expected = "a context of 16777216 positions needs";
#else
    // Under a 4 GB address-space limit, 3,000,000 positions of the bundled model need more.
    const std::string command = "ulimit -v 4000000; " + std::string(WALKTHROUGH_EXE) + " --max-seq-len 3000000 -n 1 -q 2>&1; echo exit=$?";
    const char* expected = "a context of 3000000 positions needs";
#endif
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe);
    std::string out;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
    pclose(pipe);
    CHECK_THAT(out, Contains(expected) && Contains("exit=1"));
}

TEST_CASE("CLI: a debug log that cannot be written fails the run", "[hostile][cli]") {
    const CliRun r = runWalkthrough("-n 2 -q --debug-log /dev/full");
    CHECK(r.exitCode == 1);
    CHECK_THAT(r.output, Contains("writing the debug log '/dev/full' failed") && !Contains("Debug log written"));
}

TEST_CASE("stepper: a breakpoint on a layer the model does not have is refused", "[hostile][cli][step]") {
    const CliRun r = runWalkthrough("--synthetic tiny --step -n 1", std::string("b attention_norm 999\nc\n"));
    CHECK_THAT(r.output, Contains("layer 999 does not exist: this model has layers 1 to 2") && !Contains("breakpoint: stage"));
    CHECK(r.exitCode == 0);
}

TEST_CASE("messages name what is wrong with a model directory's files", "[hostile][formats]") {
    const fs::path dir = fs::temp_directory_path() / ("llama_hostile_dir_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(ASSETS_DIR "/model/params.json", dir / "params.json");
    fs::copy_file(ASSETS_DIR "/model/tokenizer.model", dir / "tokenizer.model");
    REQUIRE(mkfifo((dir / "consolidated.00.pth").c_str(), 0600) == 0);
    CHECK_THROWS_WITH(loadModel(dir.string()), Contains("consolidated.00.pth is a FIFO, not a regular file"));
    fs::remove(dir / "consolidated.00.pth");
    fs::copy_file(ASSETS_DIR "/model/consolidated.00.pth", dir / "consolidated.00.pth");
    std::ofstream(dir / "tokenizer.model", std::ios::trunc).close();
    CHECK_THROWS_WITH(loadModel(dir.string()), Contains("tokenizer.model is empty"));
    fs::remove_all(dir);
}

TEST_CASE("a pickle global with control bytes is shown escaped, not cut short", "[hostile][formats]") {
    const std::string pkl = std::string("\x80\x02" "cos\0x\nsystem\n.", 16);
    CHECK_THROWS_WITH(pickle::unpickle(std::as_bytes(std::span(pkl.data(), pkl.size())), "data.pkl"),
                      Contains("pickle global 'os\\x00x.system' is not allowed"));
}

TEST_CASE("tokenizer.json: an empty or broken pre-tokenizer regex is refused naming the file", "[hostile][tokenizer]") {
    auto withPattern = [](const std::string& pattern) {
        return writeTemp("tok.json", R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": ")" + pattern + R"("}, "behavior": "Isolated", "invert": false},
                {"type": "ByteLevel", "use_regex": false}]}})");
    };
    const std::string empty = withPattern("");
    CHECK_THROWS_WITH(HfTokenizer(empty, ""), Contains(empty) && Contains("Regex pattern is empty"));
    const std::string broken = withPattern("(a");
    CHECK_THROWS_WITH(HfTokenizer(broken, ""), Contains(broken) && Contains("does not compile"));
}
