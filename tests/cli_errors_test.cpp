// The CLI on bad input: a non-zero exit and one clear message, never a crash.
#include <catch2/catch.hpp>

#include "cli_run.h"
#include "formats_fixtures.h"
#include "options/cli_messages.h"
#include "options/live_run_options.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

namespace {
// A copy of the bundled model's directory that a test may break.
fs::path modelCopy(const std::string& name) {
    fs::path dir = fs::temp_directory_path() / ("llama_cli_test_" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* f : {"params.json", "tokenizer.model", "consolidated.00.pth"})
        fs::copy_file(fs::path(ASSETS_DIR) / "model" / f, dir / f);
    return dir;
}

}  // namespace

TEST_CASE("CLI: missing model directory", "[cli][errors]") {
    requireOneClearError(runWalkthrough("--model /nonexistent/model --prompt hi"), "'/nonexistent/model' does not exist");
}

TEST_CASE("CLI: directory without the model files", "[cli][errors]") {
    fs::path dir = modelCopy("missing");
    fs::remove(dir / "consolidated.00.pth");
    requireOneClearError(runWalkthrough("--model " + dir.string() + " --prompt hi"), "missing consolidated.00.pth");
}

TEST_CASE("CLI: broken params.json", "[cli][errors]") {
    fs::path dir = modelCopy("params");
    std::ofstream(dir / "params.json") << R"({"dim": 64, "n_layers": )";
    requireOneClearError(runWalkthrough("--model " + dir.string() + " --prompt hi"), "params.json: not valid JSON");
}

TEST_CASE("CLI: truncated checkpoint", "[cli][errors]") {
    fs::path dir = modelCopy("truncated");
    fs::resize_file(dir / "consolidated.00.pth", fs::file_size(dir / "consolidated.00.pth") / 2);
    requireOneClearError(runWalkthrough("--model " + dir.string() + " --prompt hi"), "consolidated.00.pth");
}

TEST_CASE("CLI: prompt longer than the context", "[cli][errors]") {
    std::string prompt(400, 'a');
    for (size_t i = 1; i < prompt.size(); i += 2) prompt[i] = ' ';
    requireOneClearError(runWalkthrough("--model " + std::string(ASSETS_DIR) + "/model --max-seq-len 16 --prompt '" + prompt + "'"),
                         "context length is 16");
}

TEST_CASE("CLI: unknown synthetic preset and bad flag values", "[cli][errors]") {
    requireOneClearError(runWalkthrough("--synthetic huge"), "unknown synthetic preset 'huge'");
    CliRun r = runWalkthrough("--top-p 2");
    INFO(r.output);
    REQUIRE(r.exitCode != 0);
    REQUIRE(r.output.find("--top-p") != std::string::npos);
}

TEST_CASE("CLI: a checkpoint whose pickle nests 200,000 tuples deep is refused by run and inspect", "[cli][errors][hostile]") {
    fs::path dir = modelCopy("deep_pickle");
    const std::string pickle = "\x80\x02)" + std::string(200000, '\x85') + ".";
    std::ofstream(dir / "consolidated.00.pth", std::ios::binary) << formats_test::storedZip("consolidated/data.pkl", pickle);
    for (const std::string command : {"--prompt hi --model ", "inspect --model "})
        requireOneClearError(runWalkthrough(command + dir.string()), "values nest more than 100 deep");
}

TEST_CASE("CLI: command lines CLI11 refuses are refused in the program's words, naming the option and the text typed", "[cli][errors][hostile]") {
    const std::pair<const char*, const char*> cases[] = {
        {"--prompt", "--prompt: expected a value after it"},
        {"-n", "--max-tokens: expected a value after it"},
        {"--seed=", "--seed: expected a value after it"},
        {"foo", "unexpected argument 'foo': every value follows its option (-p TEXT, -n 10), one value each"},
        {"-n 1 2 3", "unexpected argument '2': every value follows its option (-p TEXT, -n 10), one value each"},
        {"--nope", "unknown option '--nope'"},
        {"inspect --nope", "unknown option '--nope'"},
        {"-p a --nope --nope2", "unknown option '--nope'"},
        {"--model a --synthetic tiny", "--model and --synthetic cannot be used together: choose one"},
        {"--json=x", "--json takes no value, got 'x'"},
        {"-p a -p b", "--prompt is given more than once: give it once"},
        {"--allow-special", "--allow-special requires --chat"},
        {"convert", "--to is required"},
        {"--temperature 1 --mirostat 2 --mirostat-tau 1e-320",
         "--mirostat-tau: expected a surprise in bits above 0 and at most 100, got '1e-320' (too close to 0 for a 32-bit float, which would hold 0)"},
        {"--min-p 1e-320", "--min-p: expected a fraction from 0 (off) to 1, got '1e-320' (too close to 0 for a 32-bit float, which would hold 0)"},
        {"--rope-theta 1e-400", "--rope-theta: expected a base frequency above 1 and at most 1e12, got '1e-400'"},
    };
    for (const auto& [args, message] : cases) {
        INFO(args);
        const CliRun r = runWalkthrough(args);
        CHECK(r.exitCode == 1);
        CHECK(r.output == std::string(message) + "\nRun with --help to list the options.\n");
    }
}

TEST_CASE("CLI: CLI11's texts for the programmer never reach a user", "[cli][errors][hostile]") {
    CHECK(llama::options::inOurWords(CLI::CallForHelp()) == "--help lists the options in a terminal (llama-walkthrough --help); it does not run here");
    CHECK(llama::options::inOurWords(CLI::CallForAllHelp()) == llama::options::inOurWords(CLI::CallForHelp()));
    CHECK(llama::options::inOurWords(CLI::CallForVersion()) == "--version prints the version in a terminal; it does not run here");
    // Where no help is printed (the page's runs, the course's Try-its), --help is refused in these words.
    CHECK_THROWS_WITH(llama::options::parseLiveRun({"--help"}), llama::options::inOurWords(CLI::CallForHelp()));
    CHECK_THROWS_WITH(llama::options::parseLiveRun({"--top-k"}), "--top-k: expected a value after it");
}

TEST_CASE("CLI: the live page's batch, patch and tokenize commands take the CLI's options and refuse in its words", "[cli][errors]") {
    using namespace llama::options;
    // Each command's words, the CLI's refusal (the walkthrough run on the same words) and the page's.
    const std::vector<std::vector<std::string>> refused = {
        {"batch", "-p", "x", "--keep", "2"},  {"batch", "--parallel", "0", "-p", "x"}, {"batch"},
        {"patch", "--clean", "x"},            {"patch", "--clean", "x", "--corrupt", "y", "--answer", "z", "--site", "head"},
        {"tokenize"},                         {"tokenize", "x", "--top-k", "3"},
    };
    for (const auto& words : refused) {
        std::string args;
        for (const auto& w : words) args += (args.empty() ? "" : " ") + std::string("'") + w + "'";
        INFO(args);
        const CliRun r = runWalkthrough(args);
        REQUIRE(r.exitCode == 1);
        // The CLI's message: its "error: ..." line, or a parse error's first line.
        std::string message = r.output.substr(0, r.output.find('\n'));
        if (message.rfind("error: ", 0) == 0) message = message.substr(7);
        CHECK_THROWS_WITH(parseLiveCommand(words), message);
    }
    // What the page takes: the subcommand's own options, as the CLI has them.
    const LiveCommand batch = parseLiveCommand({"batch", "-q", "-p", "a", "-p", "b", "--parallel", "2", "-n", "12", "--max-seq-len", "24", "--context-shift",
                                                "--keep", "2", "--temperature", "0.5", "--seed", "7"});
    REQUIRE(std::holds_alternative<LiveBatchRequest>(batch));
    const LiveBatchRequest& b = std::get<LiveBatchRequest>(batch);
    CHECK(b.batch.prompts == std::vector<std::string>{"a", "b"});
    CHECK((b.batch.parallel == 2 && b.batch.contextShift && b.batch.keep == 2 && b.maxSeqLen == 24 && b.settings.maxTokens == 12));
    CHECK((b.settings.sampling.temperature == 0.5f && b.settings.sampling.seed == 7 && b.model.model == "assets/model"));
    const LiveCommand patch = parseLiveCommand({"patch", "--clean", "a b", "--corrupt", "a c", "--answer", " d", "--site", "attention", "--align", "end"});
    REQUIRE(std::holds_alternative<LivePatchRequest>(patch));
    const llama::PatchingSetup setup = std::get<LivePatchRequest>(patch).patch.patchingSetup();
    CHECK((setup.clean == "a b" && setup.answer == " d" && setup.site == llama::ActivationPatch::Site::AttentionOutput &&
           setup.align == llama::PatchingSetup::Align::End));
    const LiveCommand tokenize = parseLiveCommand({"tokenize", "the lower parts", "--word", "lower", "--model", "m.gguf"});
    REQUIRE(std::holds_alternative<LiveTokenizeRequest>(tokenize));
    CHECK((std::get<LiveTokenizeRequest>(tokenize).tokenize.word == "lower" && modelChoice(tokenize).model == "m.gguf"));
    CHECK(std::holds_alternative<LiveRunRequest>(parseLiveCommand({"-p", "batch"})));  // a prompt, not the subcommand
}
