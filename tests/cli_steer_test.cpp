// Steering and constraining a run from the CLI (issue 34): greedy text under grammars and mirostat
// text equal to llama.cpp's (steerGoldens from llama-cli by tests/fixtures/steer/make_goldens.py, on the
// bundled model as an F32 GGUF), and bad input refused with exit 1 and nothing written.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_run.h"

namespace fs = std::filesystem;

namespace {
const std::string kSteerFixtures = std::string(TEST_FIXTURES_DIR) + "/steer/";

nlohmann::json steerGoldens() { return readGoldens(kSteerFixtures + "llamacpp_goldens.json"); }
}  // namespace

TEST_CASE("CLI grammar: greedy text under a grammar is llama.cpp's", "[cli][grammar][llamacpp]") {
    const auto g = steerGoldens();
    REQUIRE(g["grammar"].size() == 8);
    for (const auto& c : g["grammar"]) {
        const std::string grammar = c["grammar"];
        const std::string option = grammar == "json" ? "--json" : "--grammar " + kSteerFixtures + grammar;
        DYNAMIC_SECTION(grammar << " / " << c["prompt"].get<std::string>()) {
            auto r = runWalkthrough("-q --threads 2 --model " + bundledF32Gguf() + " -p " + quoted(c["prompt"]) + " -n " +
                                    std::to_string(c["n"].get<int>()) + " " + option);
            REQUIRE(r.exitCode == 0);
            CHECK(generatedText(r) == c["text"].get<std::string>());
        }
    }
}

TEST_CASE("CLI mirostat: v1 and v2 draw llama.cpp's tokens for the same seed", "[cli][mirostat][llamacpp]") {
    const auto g = steerGoldens();
    REQUIRE(g["mirostat"].size() == 8);
    for (const auto& c : g["mirostat"]) {
        DYNAMIC_SECTION("v" << c["version"] << " seed " << c["seed"] << " / " << c["prompt"].get<std::string>()) {
            auto r = runWalkthrough(fmt::format("-q --threads 2 --model {} -p {} -n {} --temperature {} --mirostat {} --mirostat-tau {} "
                                                "--mirostat-eta {} --seed {}",
                                                bundledF32Gguf(), quoted(c["prompt"]), c["n"].get<int>(), c["temperature"].get<float>(),
                                                c["version"].get<int>(), c["tau"].get<float>(), c["eta"].get<float>(), c["seed"].get<int>()));
            REQUIRE(r.exitCode == 0);
            CHECK(generatedText(r) == c["text"].get<std::string>());
        }
    }
}

TEST_CASE("CLI control vector: greedy text with our file and with llama.cpp's is llama.cpp's", "[cli][cvector][llamacpp]") {
    const auto g = steerGoldens();
    REQUIRE(g["control_vector"].size() == 5);
    for (const auto& c : g["control_vector"]) {
        std::string option = fmt::format("--control-vector {}{}:{}", kSteerFixtures, c["file"].get<std::string>(), c["scale"].get<float>());
        if (!c["layers"].is_null()) option += fmt::format(" --control-vector-layers {}-{}", c["layers"][0].get<int>(), c["layers"][1].get<int>());
        DYNAMIC_SECTION(option) {
            auto r = runWalkthrough("-q --threads 2 --model " + bundledF32Gguf() + " -p " + quoted(c["prompt"]) + " -n " +
                                    std::to_string(c["n"].get<int>()) + " " + option);
            REQUIRE(r.exitCode == 0);
            // -q prints the experiment's banner first: the text follows it.
            const std::string text = generatedText(r);
            REQUIRE(text.rfind("What-if experiment, not the model's own computation: --control-vector ", 0) == 0);
            CHECK(text.substr(text.find('\n') + 1) == c["text"].get<std::string>());
        }
    }
}

TEST_CASE("CLI control vector: the stage after each steered block gives the direction's norm beside the residual's", "[cli][cvector]") {
    auto r = runWalkthrough("-q -n 1 --control-vector " + kSteerFixtures + "joy.gguf:3 --control-vector-layers 2-3 --debug-log /dev/stdout");
    REQUIRE(r.exitCode == 0);
    size_t count = 0;
    for (size_t at = 0; (at = r.output.find("What-if --control-vector: adding direction shape([256]) to the block output", at)) != std::string::npos; ++at)
        ++count;
    CHECK(count == 2);  // layers 2 and 3 of the one pass
    CHECK_THAT(r.output, Catch::Contains("(direction norm 3, residual norm "));
}

TEST_CASE("CLI mirostat: the sample stage shows mu before and after every step", "[cli][mirostat]") {
    auto r = runWalkthrough("-q -n 3 --temperature 0.8 --mirostat 2 --mirostat-tau 4 --debug-log /dev/stdout");
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.output, Catch::Contains("(mirostat 2: ") && Catch::Contains("mu 8.000 -> "));
}

TEST_CASE("CLI grammar: the sample stage says how many tokens the grammar allowed", "[cli][grammar]") {
    auto r = runWalkthrough("-q -n 2 --grammar-text 'root ::= [0-9]+' --debug-log /dev/stdout");
    REQUIRE(r.exitCode == 0);
    // Digits only: the bundled vocabulary's ten one-digit tokens and its tokens of several digits.
    const auto at = r.output.find("(greedy: argmax after the grammar (");
    REQUIRE(at != std::string::npos);
    const int allowed = std::stoi(r.output.substr(at + 35));
    CHECK(allowed >= 10);
    CHECK(allowed < 200);
}

TEST_CASE("CLI steering: bad grammars and mirostat settings exit 1, naming the file, rule or option, writing nothing", "[cli][grammar][hostile]") {
    ScratchDir dir{fs::temp_directory_path() / ("llama_steer_bad_" + std::to_string(getpid()))};
    fs::create_directories(dir.path);
    auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream(dir.path / name) << text;
        return (dir.path / name).string();
    };
    const std::string trace = (dir.path / "run.trace").string();
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"--grammar " + write("empty.gbnf", "# nothing\n"), "empty.gbnf: the grammar is empty"},
        {"--grammar " + write("left.gbnf", "root ::= list\nlist ::= list \",\" item | item\nitem ::= [0-9]\n"),
         "left.gbnf:2:1: rule list: left recursion (list -> list)"},
        {"--grammar " + write("undefined.gbnf", "root ::= \"a\" (b | \"c\")\n"), "undefined.gbnf:1:15: undefined rule 'b'"},
        {"--grammar " + write("nothing.gbnf", "root ::= [] \"a\"\n"), "nothing.gbnf:1:10: the character class [] matches no character of text"},
        {"--grammar " + write("endless.gbnf", "root ::= \"a\" root\n"), "endless.gbnf:1:1: rule root: it can match no text"},
        {"--grammar " + (dir.path / "missing.gbnf").string(), "missing.gbnf"},
        {"--grammar-text 'root ::= \"a'", "--grammar-text: grammar:1:10: unterminated string literal"},
        {"--temperature 0.8 --mirostat 2 --mirostat-tau 0", "--mirostat-tau: expected a surprise in bits above 0"},
        {"--temperature 0.8 --mirostat 1 --mirostat-tau -1", "--mirostat-tau: expected a surprise in bits above 0"},
        {"--mirostat 3", "--mirostat: expected 0 (off), 1 or 2"},
        {"--mirostat 2", "mirostat samples: it needs a temperature above 0"},
        {"--temperature 0.8 --mirostat 2 --top-k 40", "mirostat replaces top-k, top-p, min-p and the repetition penalties"},
        {"--control-vector " + write("text.gguf", "not a gguf file\n"), "text.gguf"},
        {"--control-vector " + kSteerFixtures + "joy.gguf:x2", "joy.gguf:x2"},
        {"--control-vector " + kSteerFixtures + "joy.gguf --control-vector-layers 5-3", "--control-vector-layers: expected A-B"},
        {"--control-vector " + kSteerFixtures + "joy.gguf --control-vector-layers 2-9", "--control-vector-layers 2-9: no file has a direction for layer 9"},
        {"--synthetic tiny --control-vector " + kSteerFixtures + "joy.gguf", "joy.gguf: its directions have 256 floats, but the model's dim is"},
        {"--control-vector-layers 2-3", "--control-vector-layers requires --control-vector"},
    };
    for (const auto& [args, message] : cases) {
        DYNAMIC_SECTION(args) {
            auto r = runWalkthrough("-q -n 2 " + args + " --trace " + trace);
            CHECK(r.exitCode == 1);
            CHECK_THAT(r.output, Catch::Contains(message));
            CHECK_FALSE(fs::exists(trace));
        }
    }
}
