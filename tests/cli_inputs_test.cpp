// What goes into a run, through the real CLI: --tokenizer for synthetic presets, dry runs of a
// GGUF file, the repetition penalties and their checks.
#include <catch2/catch.hpp>

#include "cli_run.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "reference_tokenizers.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

TEST_CASE("CLI --tokenizer: a preset gets the real tokenizer's token count", "[cli][tokenizer]") {
    const std::string args = "--synthetic llama3.1-8b --dry-run -q -n 1 -p \"The cat sat on the mat\"";
    const CliRun bytes = runWalkthrough(args, "");
    INFO(bytes.output);
    CHECK_THAT(bytes.output, Contains("Prompt tokens: 23 |"));  // BOS + 22 bytes
    const CliRun real = runWalkthrough(args + " --tokenizer " + referenceTokenizerPath("LLAMA3_TIKTOKEN_MODEL"), "");
    INFO(real.output);
    CHECK(real.exitCode == 0);
    CHECK_THAT(real.output, Contains("Prompt tokens: 7 |"));
}

TEST_CASE("CLI --tokenizer of another vocabulary size, or for a model that brings its own, is refused", "[cli][tokenizer][errors]") {
    const std::string llama3 = referenceTokenizerPath("LLAMA3_TOKENIZER_JSON");
    const CliRun r = runWalkthrough("--synthetic llama2-7b --dry-run -q -n 1 --tokenizer " + llama3, "");
    CHECK(r.exitCode == 1);
    CHECK_THAT(r.output, Contains("the tokenizer has 128256 tokens, but the synthetic preset 'llama2-7b' has a vocabulary of 32000"));
    const CliRun files = runWalkthrough("--dry-run -q -n 1 --tokenizer " + llama3, "");
    CHECK(files.exitCode != 0);
    CHECK_THAT(files.output, Contains("--tokenizer is for --synthetic presets and llama2.c checkpoints"));
}

TEST_CASE("CLI --chat on a Llama 2 preset uses Llama 2's template", "[cli][tokenizer]") {
    const fs::path log = fs::temp_directory_path() / ("llama_cli_inputs_" + std::to_string(::getpid()) + ".log");
    const CliRun r = runWalkthrough("--synthetic llama2-7b --dry-run --chat -q -n 1 -p Hi --debug-log " + log.string(), "");
    INFO(r.output);
    CHECK(r.exitCode == 0);
    std::ifstream in(log);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    // <s> [ I N S T ] ▁ H i ▁ [ / I N S T ]: Llama 2's byte ids, no Llama 3 header token.
    CHECK_THAT(text, Contains("Tokenized the prompt into 18 tokens: 1 94 76 81 86 87 96 259 75 108 259 94 50 76 81 86 87 96"));
    fs::remove(log);
}

TEST_CASE("CLI --dry-run of a GGUF file", "[cli][dryrun][gguf]") {
    const fs::path file = fs::temp_directory_path() / ("llama_cli_inputs_" + std::to_string(::getpid()) + ".gguf");
    REQUIRE(runWalkthrough("convert --model " + std::string(ASSETS_DIR) + "/model --to gguf-q8_0 --out " + file.string()).exitCode == 0);
    const CliRun r = runWalkthrough("--model " + file.string() + " --dry-run -n 2", "");
    INFO(r.output);
    CHECK(r.exitCode == 0);
    CHECK_THAT(r.output, Contains("Model: GGUF v3 (17 F32, 58 Q8_0), dry run: shape-only weights"));
    CHECK_THAT(r.output, !Contains("Loading weights"));
    CHECK_THAT(r.output, Contains("stopped by: max tokens"));
    fs::remove(file);
}

TEST_CASE("CLI penalties: a repeat penalty breaks the greedy loop - bad values are refused", "[cli][penalties]") {
    const CliRun plain = runWalkthrough("-q -n 64", "");
    CHECK_THAT(plain.output, Contains("nor to your land, nor to your land"));
    const CliRun penalized = runWalkthrough("-q -n 64 --repeat-penalty 1.3", "");
    INFO(penalized.output);
    CHECK(penalized.exitCode == 0);
    CHECK_THAT(penalized.output, !Contains("nor to your land, nor to your land"));
    CHECK_THAT(penalized.output, !Contains("I will not give them.\nAnd Moses"));
    for (const auto& [flag, message] :
         {std::pair{"--repeat-penalty nan", "--repeat-penalty: expected a number above 0 and at most 10 (1 is off), got 'nan'"},
          {"--repeat-penalty 0", "--repeat-penalty: expected a number above 0 and at most 10 (1 is off), got '0'"},
          {"--frequency-penalty x", "--frequency-penalty: expected a number from -10 to 10 (0 is off), got 'x'"},
          {"--presence-penalty -inf", "--presence-penalty: expected a number from -10 to 10 (0 is off), got '-inf'"},
          {"--repeat-last-n -2", "--repeat-last-n: expected a token count from -1 (all) to 1073741824, got '-2'"}}) {
        const CliRun r = runWalkthrough(std::string("-q -n 1 ") + flag, "");
        INFO(flag);
        CHECK(r.exitCode != 0);
        CHECK_THAT(r.output, Contains(message));
    }
}

TEST_CASE("CLI without --model: the bundled model is found from the program's folder, not a path baked in at build time", "[cli]") {
    // From another working folder: found above the program (build/walkthrough/ -> assets/model).
    const CliRun elsewhere = runShell("cd / && " + std::string(WALKTHROUGH_EXE) + " -q -n 2 -p Hi 2>&1");
    INFO(elsewhere.output);
    CHECK(elsewhere.exitCode == 0);
    // A copy of the program with no assets near it: refused, naming the path it looked for.
    const fs::path alone = fs::temp_directory_path() / ("llama_program_alone_" + std::to_string(getpid()));
    fs::create_directories(alone);
    fs::copy_file(WALKTHROUGH_EXE, alone / "llama-walkthrough", fs::copy_options::overwrite_existing);
    const CliRun copied = runShell("cd " + alone.string() + " && ./llama-walkthrough -q -n 2 -p Hi 2>&1");
    fs::remove_all(alone);
    requireOneClearError(copied, "assets/model");
}
