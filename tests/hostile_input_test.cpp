// Hostile and mistaken input found by a run of a few hundred bad inputs: each is refused with
// exit code 1 (or a thrown error) and a message naming the file, field or flag, never a crash,
// a gigabyte allocation or silent acceptance.
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <cstring>
#include <limits>

#include "cli_run.h"
#include "doccheck/try_it.h"
#include "formats/gguf/gguf_llama.h"
#include "formats/hf/hf_config.h"
#include "formats/hf/hf_weights.h"
#include "formats/llama2c/llama2c_tokenizer.h"
#include "formats/meta/params_json.h"
#include "formats/meta/pickle.h"
#include "io/input_file.h"
#include "session/model_source.h"
#include "tokenizer/hf_tokenizer.h"
#include "tokenizer/sentencepiece_tokenizer.h"

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

std::string writeHostileFile(const std::string& name, const std::string& text) {
    const fs::path p = fs::temp_directory_path() / ("llama_hostile_" + std::to_string(getpid()) + "_" + name);
    std::ofstream(p) << text;
    return p.string();
}

std::string paramsWith(const std::string& extra) {
    return R"({"dim": 64, "n_layers": 2, "n_heads": 4, "vocab_size": 100)" + extra + "}";
}

}  // namespace

TEST_CASE("params.json: numbers outside any Llama's range are refused by name", "[hostile][args]") {
    CHECK_THROWS_WITH(loadParamsJson(writeHostileFile("huge_dim.json", R"({"dim": 2.56e74, "n_layers": 2, "n_heads": 4, "vocab_size": 10})")),
                      Contains("field 'dim'") && Contains("whole number"));
    CHECK_THROWS_WITH(loadParamsJson(writeHostileFile("layers.json", R"({"dim": 64, "n_layers": 1000000000, "n_heads": 4, "vocab_size": 10})")),
                      Contains("'n_layers' is 1000000000: expected 1 to 1024"));
    CHECK_THROWS_WITH(loadParamsJson(writeHostileFile("ffn_neg.json", paramsWith(R"(, "ffn_dim_multiplier": -1.3)"))),
                      Contains("'ffn_dim_multiplier' is -1.3"));
    CHECK_THROWS_WITH(loadParamsJson(writeHostileFile("ffn_big.json", paramsWith(R"(, "ffn_dim_multiplier": 1e12)"))),
                      Contains("'ffn_dim_multiplier' is 1000000000000"));
    CHECK_THROWS_WITH(loadParamsJson(writeHostileFile("theta.json", paramsWith(R"(, "rope_theta": -5)"))), Contains("'rope_theta' is -5"));
}

TEST_CASE("config.json: errors use config.json's own keys", "[hostile][args]") {
    const std::string path = writeHostileFile("config.json", R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 0,
        "vocab_size": 100, "intermediate_size": 128})");
    CHECK_THROWS_WITH(loadHfConfig(path), Contains("'num_attention_heads' is 0") && !Contains("'n_heads'"));
    const std::string ctx = writeHostileFile("ctx.json", R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "vocab_size": 100, "intermediate_size": 128, "max_position_embeddings": 2147483647})");
    CHECK_THROWS_WITH(loadHfConfig(ctx), Contains("'max_position_embeddings' is 2147483647: expected 1 to 16777216"));
}

TEST_CASE("CLI: bad flag values are refused with readable ranges", "[hostile][cli]") {
    struct Case {
        const char* args;
        const char* message;
    };
    // Each is exit 1 and one line in the option's words: no wrap-around (4294967297 is not 1),
    // no SIGABRT from an exception in a CLI11 callback, no 309-digit bound.
    for (const auto& [args, message] : {
             Case{"--temperature nan", "--temperature: expected a number from 0 (greedy) to 100, got 'nan'"},
             Case{"--threads 1000", "--threads: expected a thread count from 1 to"},
             Case{"--max-seq-len 1073741824", "--max-seq-len: expected a context length from 1 to 16777216"},
             Case{"--top-k -1", "--top-k: expected a token count from 0 (all) to 4194304, got '-1'"},
             Case{"--ablate-head 0:0", "--ablate-head: expected LAYER:HEAD, two numbers from 1 (e.g. 2:5), got '0:0'"},
             Case{"--ablate-head foo", "--ablate-head: expected LAYER:HEAD"},
             Case{"--ablate-head -1:2", "--ablate-head: expected LAYER:HEAD"},
             Case{"--ablate-head 1:1x", "--ablate-head: expected LAYER:HEAD"},
             Case{"--ablate-head 4294967297:1", "--ablate-head: expected LAYER:HEAD"},
             Case{"--seed -1", "--seed: expected a whole number from 0 to 18446744073709551615, got '-1'"},
             Case{"--seed 18446744073709551616", "--seed: expected a whole number"},
             Case{"--skip-layer 0", "--skip-layer: expected a layer from 1 upwards, got '0'"},
             Case{"--rope-theta 1", "--rope-theta: expected a base frequency above 1 and at most 1e12, got '1'"},
             Case{"--rope-theta inf", "--rope-theta: expected a base frequency"},
             Case{"--repeat-penalty nan", "--repeat-penalty: expected a number above 0 and at most 10"},
             Case{"bench --repeat 0", "--repeat: expected a count from 1 to 1000, got '0'"},
             Case{"bench --prompt-tokens 32,x", "--prompt-tokens: expected a token count from 1 to 16777216, got 'x'"},
             Case{"inspect --block x 0 --block-index -1", "--block-index: expected a block number from 0, got '-1'"},
             Case{"convert --synthetic tiny --to gguf-f32 --out /tmp/x.gguf --seed -5", "--seed: expected a whole number"},
         }) {
        INFO(args);
        const CliRun r = runWalkthrough(std::string(args) + " -n 1 -q");
        CHECK(r.exitCode == 1);
        CHECK_THAT(r.output, Contains(message));
        CHECK(r.output.size() < 300);  // no 300-digit maximum
    }
    // Past parsing, the model's own bounds in the same words.
    const CliRun layer = runWalkthrough("--skip-layer 9 -n 1 -q");
    CHECK(layer.exitCode == 1);
    CHECK_THAT(layer.output, Contains("--skip-layer: a layer from 1 to 8, got 9"));
}

TEST_CASE("CLI: outputs are checked before any work", "[hostile][cli][outputs]") {
    const fs::path dir = fs::temp_directory_path() / ("llama_hostile_out_" + std::to_string(getpid()));
    fs::create_directories(dir);
    const std::string model = std::string(ASSETS_DIR) + "/model";
    struct Case {
        std::string args;
        std::string message;
    };
    for (const auto& [args, message] : {
             Case{"--trace " + model + "/params.json", "is a file this run reads"},
             Case{"--debug-log " + model + "/consolidated.00.pth", "is a file this run reads"},
             Case{"--trace " + dir.string(), "is a folder; expected a file path"},
             Case{"--debug-log " + dir.string() + "/missing/x.log", "does not exist"},
             Case{"--trace " + dir.string() + "/x --debug-log " + dir.string() + "/x", "is also another output of this run"},
             Case{"convert --model " + model + " --to gguf-f32 --out " + dir.string(), "--out '" + dir.string() + "': is a folder"},
             Case{"convert --model " + model + " --to gguf-f32 --out ''", "--out: expected a file path, got an empty one"},
         }) {
        INFO(args);
        // A run's options stay out of `convert`, which applies none of them (walkthrough/option_scope.h).
        const CliRun r = runWalkthrough((args.starts_with("convert") ? "" : "--model " + model + " -n 1 -q ") + args);
        CHECK(r.exitCode == 1);
        CHECK_THAT(r.output, Contains(message) && !Contains("Loading") && !Contains("Prompt tokens"));
    }
    // Nothing was replaced or left behind.
    CHECK(fs::file_size(model + "/params.json") > 0);
    CHECK(fs::is_empty(dir));
    fs::remove_all(dir);
}

TEST_CASE("CLI: SIGTERM during a run removes the temporary trace", "[hostile][cli][outputs]") {
    const fs::path dir = fs::temp_directory_path() / ("llama_hostile_term_" + std::to_string(getpid()));
    fs::create_directories(dir);
    // The stepper holds the run at its first stage (stdin stays open), the trace half-written.
    // Its stdin's FIFO beside the folder, which must be left empty.
    const fs::path fifo = dir.string() + ".stdin";
    const std::string command = heldAtFirstStage(std::string(WALKTHROUGH_EXE) + " --synthetic tiny --step -n 2 -q --trace " + (dir / "run.trace").string(), fifo,
                                                 dir.string() + ".out") +
                                "ls " + dir.string() + "; kill -TERM $pid; wait $pid; echo exit=$?; ls " + dir.string();
    const std::string out = runShell(command).output;
    fs::remove(fifo);
    fs::remove(dir.string() + ".out");
    INFO(out);
    CHECK_THAT(out, Contains("run.trace.tmp-"));  // it was there while the run was held
    CHECK_THAT(out, Contains("exit=143"));        // died of SIGTERM, as before
    CHECK(fs::is_empty(dir));                      // and left nothing
    fs::remove_all(dir);
}

TEST_CASE("CLI: files that are not regular files are refused by type", "[hostile][cli][inputs]") {
    const std::string fifo = (fs::temp_directory_path() / ("llama_hostile_fifo_" + std::to_string(getpid()))).string();
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    for (const std::string& args : {std::string("diff /dev/zero /dev/zero"), "diff " + fifo + " " + fifo}) {
        INFO(args);
        const CliRun r = runWalkthrough(args);
        CHECK(r.exitCode == 1);
        CHECK_THAT(r.output, Contains("expected a regular file") && !Contains("bad_alloc"));
    }
    fs::remove(fifo);
}

TEST_CASE("CLI: tokenize of empty text says so, without naming a --word nobody gave", "[hostile][cli]") {
    const CliRun r = runWalkthrough("tokenize ''");
    CHECK(r.exitCode == 0);
    CHECK_THAT(r.output, Contains("the text is empty") && !Contains("--word"));
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
    const std::string out = runShell(command).output;
    CHECK_THAT(out, Contains(expected) && Contains("exit=1"));
}

TEST_CASE("the browser build's memory: what is left of its 4 GB, where llama3.1-8b's weights do not fit", "[hostile][memory]") {
    using llama::moduleMemoryAvailable;
    const int64_t heapMax = (int64_t(4) << 30) - 65536;  // Emscripten 3.1.6's at MAXIMUM_MEMORY=4GB
    CHECK(moduleMemoryAvailable(heapMax, 100 << 20) == heapMax - (100 << 20));  // past 2 GB too
    CHECK(moduleMemoryAvailable(int64_t(1) << 30, 0) == int64_t(1) << 30);
    CHECK(moduleMemoryAvailable(heapMax, heapMax) == 1);  // full: what is asked is refused, not unchecked
#if !LLAMA_TEST_SANITIZED
    // The page's refusal, natively: the same check under an address-space limit of the module's 4 GB.
    const std::string out = runShell("ulimit -v 4194304; " + std::string(WALKTHROUGH_EXE) + " --synthetic llama3.1-8b -n 1 -q 2>&1; echo exit=$?").output;
    CHECK_THAT(out, Contains("the synthetic preset 'llama3.1-8b' needs 16.1 GB of memory for its weights, more than the 4.3 GB") && Contains("exit=1"));
#endif
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
        return writeHostileFile("tok.json", R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": ")" + pattern + R"("}, "behavior": "Isolated", "invert": false},
                {"type": "ByteLevel", "use_regex": false}]}})");
    };
    const std::string empty = withPattern("");
    CHECK_THROWS_WITH(HfTokenizer(empty, ""), Contains(empty) && Contains("Regex pattern is empty"));
    const std::string broken = withPattern("(a");
    CHECK_THROWS_WITH(HfTokenizer(broken, ""), Contains(broken) && Contains("does not compile"));
}

// Issue 36's classes that live in the engine: long names matched without recursion, NaN weights
// and layers the settings do not have, honest conversion reports, actionable messages.

TEST_CASE("names and lines of any length are matched without recursion", "[hostile][regex]") {
    // Each of these once went through std::regex, whose matcher recursed per character: a few
    // tens of KB overflowed the stack.
    const std::string longName = "blk.1." + std::string(200000, 'a');
    CHECK_FALSE(metaNameOfGguf(longName).has_value());
    CHECK(metaNameOfGguf("blk.12.attn_q.weight") == "layers.12.attention.wq.weight");
    CHECK(ggufNameOfMeta("layers.3.feed_forward.w2.weight") == "blk.3.ffn_down.weight");
    CHECK_FALSE(metaNameOfGguf("blk..attn_q.weight").has_value());
    CHECK_FALSE(metaTensorName("model.layers.1." + std::string(200000, 'b')).has_value());
    CHECK(metaTensorName("model.layers.0.mlp.up_proj.weight") == "layers.0.feed_forward.w3.weight");
    // tokenizer.model's first line decides SentencePiece or tiktoken.
    CHECK(isSentencePieceModel(writeHostileFile("long_line.model", std::string(300000, 'Q') + " 0\n")));
    CHECK_FALSE(isSentencePieceModel(writeHostileFile("tiktoken.model", "IQ== 0\nIg== 1\n")));
    // The documentation checks read chapters and program output.
    std::string line = "word";
    while (line.size() < 300000) line += " word";
    CHECK(tryItLineMatches("... word", line, -1));
    CHECK(tryItLineMatches("took 1.5 s ...", "took 1.5 s " + line, 0.01));
    CHECK(normalizeOutputLine("[DEBUG]12:00:00.1 " + line + " (1.5 secs)") == "[DEBUG] " + line);
}

TEST_CASE("weights: NaN or infinity in a weight, and tensors of layers the settings lack, are refused naming the tensor", "[hostile][formats]") {
    const fs::path dir = fs::temp_directory_path() / ("llama_hostile_weights_" + std::to_string(getpid()));
    fs::create_directories(dir);
    // llama2.c's legacy layout: a 28-byte header, then the token embedding table in float32.
    fs::copy_file(TEST_FIXTURES_DIR "/llama2c/legacy.bin", dir / "nan.bin", fs::copy_options::overwrite_existing);
    fs::copy_file(TEST_FIXTURES_DIR "/llama2c/tokenizer.bin", dir / "tokenizer.bin", fs::copy_options::overwrite_existing);
    {
        std::fstream f(dir / "nan.bin", std::ios::in | std::ios::out | std::ios::binary);
        const float nan = std::numeric_limits<float>::quiet_NaN();
        f.seekp(28 + 4 * 5);
        f.write(reinterpret_cast<const char*>(&nan), 4);
    }
    const CliRun nan = runWalkthrough("--model " + (dir / "nan.bin").string() + " -n 2 -q");
    CHECK(nan.exitCode == 1);
    CHECK_THAT(nan.output, Contains("nan.bin") && Contains("tensor 'tok_embeddings.weight'") && Contains("NaN or infinity at element 5"));

    // A GGUF whose block_count says 1 while it holds tensors of 2 blocks.
    REQUIRE(runWalkthrough("convert --synthetic tiny --to gguf-f32 --out " + (dir / "two.gguf").string()).exitCode == 0);
    std::string bytes;
    {
        std::ifstream in(dir / "two.gguf", std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    const size_t key = bytes.find("llama.block_count");
    REQUIRE(key != std::string::npos);
    uint32_t type, layers;
    std::memcpy(&type, bytes.data() + key + 17, 4);
    std::memcpy(&layers, bytes.data() + key + 21, 4);
    REQUIRE(type == 4);  // GGUF's UINT32
    REQUIRE(layers >= 2);
    const uint32_t one = 1;
    std::memcpy(bytes.data() + key + 21, &one, 4);
    std::ofstream(dir / "one.gguf", std::ios::binary) << bytes;
    const CliRun blocks = runWalkthrough("--model " + (dir / "one.gguf").string() + " -n 1 -q");
    CHECK(blocks.exitCode == 1);
    CHECK_THAT(blocks.output, Contains("one.gguf") && Contains("the model has 1 layers") && Contains("layers.1."));
    fs::remove_all(dir);
}

TEST_CASE("convert: the report says which type each weight was written in", "[hostile][convert]") {
    const fs::path out = fs::temp_directory_path() / ("llama_hostile_q4k_" + std::to_string(getpid()) + ".gguf");
    // The tiny preset's rows are not whole Q4_K blocks of 256: they are written in another type, and said so.
    const CliRun r = runWalkthrough("convert --synthetic tiny --to gguf-q4_k --out " + out.string());
    INFO(r.output);
    CHECK(r.exitCode == 0);
    CHECK_THAT(r.output, Contains("Tensors written: ") && Contains("weight matrices are Q8_0, not Q4_K: their rows are not whole Q4_K blocks"));
    fs::remove(out);
}

TEST_CASE("messages a user can act on: a long word, an empty tokenizer piece, a page to /dev/null", "[hostile][cli]") {
    // A 20 KB word: its merges in a few lines, not gigabytes (nor std::bad_alloc).
    std::string longWord;
    while (longWord.size() < 20000) longWord += "beginning";
    const CliRun word = runWalkthrough("tokenize " + longWord);
    CHECK(word.exitCode == 0);
    CHECK_THAT(word.output, Contains("more merges, the last:") && !Contains("bad_alloc"));
    CHECK(word.output.size() < 400000);
    // llama2.c's tokenizer.bin: float score, int32 length, the bytes; token 7's length set to 0.
    std::ifstream in(TEST_FIXTURES_DIR "/llama2c/tokenizer.bin", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t at = 4;
    for (int id = 0; id < 7; ++id) {
        int32_t length;
        std::memcpy(&length, bytes.data() + at + 4, 4);
        at += 8 + size_t(length);
    }
    int32_t length;
    std::memcpy(&length, bytes.data() + at + 4, 4);
    bytes.erase(at + 8, size_t(length));
    std::memset(bytes.data() + at + 4, 0, 4);
    const std::string path = writeHostileFile("empty_piece_tokenizer.bin", bytes);
    CHECK_THROWS_WITH(loadLlama2cTokenizer(path, 4096), Contains(path) && Contains("token 7") && Contains("length 0"));
    // A page written to a device: said where, no file-size error.
    const std::string trace = (fs::temp_directory_path() / ("llama_hostile_null_" + std::to_string(getpid()) + ".trace")).string();
    REQUIRE(runWalkthrough("--synthetic tiny -n 1 -q --trace " + trace).exitCode == 0);
    const CliRun page = runWalkthrough("export-html " + trace + " --out /dev/null");
    CHECK(page.exitCode == 0);
    CHECK_THAT(page.output, Contains("Page written to /dev/null") && !Contains("filesystem error"));
    fs::remove(trace);
}
