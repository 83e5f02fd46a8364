// Issue 46 item 4: every option applies or is refused with a reason. The main command's options
// against every subcommand (given before its name, where CLI11 takes them), options another drops,
// and integer options that wrapped around.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cli_run.h"
#include "options/checked_number.h"
#include "options/live_run_options.h"
#include "session/model_source.h"

using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {
// Each subcommand with the least it needs to parse; an existing file wherever one is checked.
std::vector<std::pair<std::string, std::string>> subcommands(const std::string& file, const std::string& out) {
    return {
        {"batch", "-p a"},
        {"bench", ""},
        {"compare-doc", file + " --log " + file},
        {"convert", "--to gguf-f32 --out " + out},
        {"cvector", "--positive " + file + " --negative " + file + " -o " + out},
        {"diff", file + " " + file},
        {"export-html", file + " --out " + out},
        {"inspect", ""},
        {"patch", "--clean a --corrupt b --answer c"},
        {"perplexity", "-f " + file},
        {"tokenize", "hi"},
        {"tokenizer-train", "--text " + file + " --out " + out},
    };
}

// The main command's options, each with a value it takes (the options another one needs, and
// --control-vector, which reads its file as it is parsed, are left out).
const std::vector<std::string> kMainOptions = {
    "--model assets/model", "--synthetic tiny", "--tokenizer t.model", "--seed 1", "--threads 1", "--max-seq-len 64", "--prompt x",
    "--system x", "--chat", "--completion", "--max-tokens 5", "--temperature 1", "--top-k 5", "--top-p 0.5", "--min-p 0.1",
    "--repeat-penalty 1.1", "--repeat-last-n 8", "--frequency-penalty 1", "--presence-penalty 1", "--mirostat 1",
    "--grammar-text 'root ::= \"a\"'", "--json", "--debug-log x.log", "--quiet", "--dry-run", "--step", "--trace x.trace",
    "--html x.html", "--no-mask", "--no-kv-cache", "--rope-theta 5000", "--no-rope", "--ablate-head 1:1", "--skip-layer 1",
    "--compute-dtype f32", "--draft-model m.gguf", "--draft-layers 1", "--draft-max 2", "--ubatch 8",
};

// Which of them each subcommand applies (walkthrough/option_scope.cpp's table, as a user reads it).
bool applies(const std::string& subcommand, const std::string& option) {
    const std::string name = option.substr(0, option.find(' '));
    if (subcommand == "bench")
        for (const char* o : {"--model", "--synthetic", "--tokenizer", "--seed", "--threads", "--max-seq-len"})
            if (name == o) return true;
    const std::vector<std::string> computing = {"batch", "bench", "convert", "cvector", "patch", "perplexity"};
    return name == "--threads" && std::find(computing.begin(), computing.end(), subcommand) != computing.end();
}
}  // namespace

TEST_CASE("every option of a run given before a subcommand applies there or is refused naming both", "[hostile][options][cli]") {
    const std::string file = WALKTHROUGH_EXE;  // exists, for the subcommands that check their inputs
    const std::string out = (fs::temp_directory_path() / ("llama_options_" + std::to_string(getpid()) + ".out")).string();
    int refused = 0, applied = 0;
    for (const auto& [subcommand, args] : subcommands(file, out))
        for (const std::string& option : kMainOptions) {
            INFO(option << " " << subcommand);
            if (!applies(subcommand, option)) {
                const CliRun r = runWalkthrough(fmt::format("{} {} {}", option, subcommand, args));
                requireOneClearError(r, option.substr(0, option.find(' ')) + " is an option of a run, given before `" + subcommand + "`");
                ++refused;
                continue;
            }
            // Applied: the check passes it and stops at the next option given, which no subcommand applies.
            const CliRun r = runWalkthrough(fmt::format("{} --no-rope {} {}", option, subcommand, args));
            requireOneClearError(r, "--no-rope is an option of a run, given before `" + subcommand + "`");
            ++applied;
        }
    CHECK(refused == 12 * int(kMainOptions.size()) - applied);
    CHECK(applied == 11);
    CHECK_FALSE(fs::exists(out));
}

TEST_CASE("options another option drops, or that apply only beside another, are refused naming both", "[hostile][options][cli]") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"--temperature 0.8 --mirostat 2 --draft-layers 1", "--mirostat does not apply with --draft-layers"},
        {"--top-k 5 --draft-model m.gguf", "--top-k does not apply with --draft-model"},
        {"--min-p 0.1 --draft-layers 2", "--min-p does not apply with --draft-layers"},
        {"--draft-max 4", "--draft-max applies only with --draft-model or --draft-layers"},
        {"--temperature 0.8 --mirostat-tau 3", "--mirostat-tau requires --mirostat"},
        {"--temperature 0.8 --mirostat-eta 0.2", "--mirostat-eta requires --mirostat"},
        {"--top-k 40", "--top-k narrows the tokens a sampler draws from, and at --temperature 0 (greedy, the default)"},
        {"--temperature 0 --min-p 0.1", "--min-p narrows the tokens a sampler draws from"},
        {"--top-p 0.9 --temperature 0", "--top-p narrows the tokens a sampler draws from"},
    };
    for (const auto& [args, message] : cases) {
        INFO(args);
        const CliRun r = runWalkthrough("-q -n 1 " + args);
        CHECK(r.exitCode == 1);
        CHECK_THAT(r.output, Contains(message));
    }
    // With a temperature they filter what is drawn.
    CHECK(runWalkthrough("-q -n 1 --temperature 0.8 --top-k 40 --top-p 0.9 --min-p 0.05").exitCode == 0);
    // The live page's parser (options/live_run_options.h, the module's and the course site's) applies
    // the same rules to the options it has (not the draft ones: the page decodes one model).
    for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--temperature", "0.8", "--mirostat-tau", "3"}, "--mirostat-tau requires --mirostat"},
             {{"--top-k", "40"}, "--top-k narrows the tokens a sampler draws from, and at --temperature 0 (greedy, the default)"},
             {{"--temperature", "0", "--min-p", "0.1"}, "--min-p narrows the tokens a sampler draws from"},
             {{"--top-p", "0.9", "--temperature", "0"}, "--top-p narrows the tokens a sampler draws from"}}) {
        INFO(fmt::format("{}", fmt::join(args, " ")));
        CHECK_THROWS_WITH(llama::options::parseLiveRun(args), Contains(message));
    }
    CHECK_NOTHROW(llama::options::parseLiveRun({"--temperature", "0.8", "--top-k", "40", "--top-p", "0.9", "--min-p", "0.05"}));
}

TEST_CASE("options: --control-vector-layers reads whole numbers that do not wrap around", "[hostile][options]") {
    CHECK(llama::options::parseLayerRange("3-6") == std::pair{3, 6});
    for (const char* bad : {"4294967299-4294967300", "3-4294967302", "0-2", "5-3", "3-", "-3", "3-6x", "3 - 6", "+3-6"}) {
        INFO(bad);
        CHECK_THROWS_WITH(llama::options::parseLayerRange(bad), Contains("expected A-B") && Contains(bad));
    }
}

TEST_CASE("bench --parallel checks the context plain bench checks, and batch decodes --system and bounds it", "[hostile][options][cli]") {
    const CliRun parallel = runWalkthrough("bench --parallel 2 --prompt-tokens 200 --decode-tokens 100 --max-seq-len 256 --repeat 1");
    requireOneClearError(parallel, "--prompt-tokens 200 + --decode-tokens 100 exceed the context length 256");
    const CliRun plain = runWalkthrough("bench --prompt-tokens 200 --decode-tokens 100 --max-seq-len 256 --repeat 1");
    requireOneClearError(plain, "--prompt-tokens 200 + --decode-tokens 100 exceed the context length 256");

    // Without --chat the system text comes before every prompt: it is decoded (a shared prefix), not only printed.
    const CliRun with = runWalkthrough("batch -q -n 1 --system 'Once upon a time there was' -p ' a cat' -p ' a dog'");
    const CliRun without = runWalkthrough("batch -q -n 1 -p ' a cat' -p ' a dog'");
    REQUIRE(with.exitCode == 0);
    REQUIRE(without.exitCode == 0);
    CHECK_THAT(with.output, Contains("[1] Once upon a time there was a cat"));
    CHECK_THAT(with.output, Contains("shared prefix: 9 tokens"));     // BOS, the system text, " a"
    CHECK_THAT(without.output, Contains("shared prefix: 2 tokens"));  // BOS, " a"

    std::string longSystem;
    for (int i = 0; i < 100; ++i) longSystem += "once upon a time ";
    requireOneClearError(runWalkthrough("batch -q -n 1 --max-seq-len 64 --system '" + longSystem + "' -p a -p b"),
                         "--system is ");
    requireOneClearError(runWalkthrough("batch -q -n 1 --chat --max-seq-len 64 --system '" + longSystem + "' -p a"), "--system is ");
}

TEST_CASE("the live page reloads its model when any model-source option changes", "[hostile][options]") {
    using llama::ModelSource;
    const ModelSource files{ModelSource::Kind::Files, "assets/model", 1};
    const ModelSource tiny{ModelSource::Kind::Synthetic, "tiny", 1};
    CHECK(files.loadKey() == ModelSource{ModelSource::Kind::Files, "assets/model", 2}.loadKey());  // the seed only samples
    CHECK(tiny.loadKey() != ModelSource{ModelSource::Kind::Synthetic, "tiny", 2}.loadKey());     // a preset's weights come from it
    CHECK(tiny.loadKey() != ModelSource{ModelSource::Kind::Synthetic, "tiny", 1, "tokenizer.model"}.loadKey());
    CHECK(files.loadKey() != ModelSource{ModelSource::Kind::Files, "assets/model", 1, "tokenizer.bin"}.loadKey());
    CHECK(files.loadKey() != ModelSource{ModelSource::Kind::Files, "assets/model2", 1}.loadKey());
    CHECK(tiny.loadKey() != ModelSource{ModelSource::Kind::Files, "tiny", 1}.loadKey());
}
