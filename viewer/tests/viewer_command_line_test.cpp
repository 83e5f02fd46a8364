// Issue 46 item 4, the viewer's half: every option llama-viewer accepts applies or is refused
// before the window opens, with a message naming it. Each option is tried with a live model (alone,
// and beside what it needs when it needs something) and with --trace, which replays a recorded run;
// where it applies, the value is checked where the viewer reads it: the command line's fields, and
// for a run's options the settings EngineSession starts the run with.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "state/viewer_command_line.h"

using namespace llama;
using namespace llama::viewer;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {
using Args = std::vector<std::string>;

struct Parsed {
    CommandLine line;
    bool ok = false;       // parsed and every option applies
    std::string message;   // why not: the refusal, or the parse error as printed
};

// Parses `args` as llama-viewer's main does (its defaults first), keeping what it prints on stderr.
Parsed parse(const Args& args) {
    Parsed p;
    p.line.app.source.model = {ModelSource::Kind::Files, std::string(ASSETS_DIR) + "/model"};
    ViewerCommandLine cli(p.line);
    std::vector<std::string> words = {"llama-viewer"};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    std::fflush(stderr);
    std::FILE* printed = std::tmpfile();
    const int saved = dup(fileno(stderr));
    dup2(fileno(printed), fileno(stderr));
    try {
        p.ok = !cli.parse(int(argv.size()), argv.data());
    } catch (const std::invalid_argument& e) {
        p.message = e.what();
    }
    std::fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
    std::rewind(printed);
    for (int c; (c = std::fgetc(printed)) != EOF;) p.message += char(c);
    std::fclose(printed);
    return p;
}

std::string fixture(const std::string& path) { return std::string(TEST_FIXTURES_DIR) + "/" + path; }

// Each option the viewer accepts, with a value; what it needs beside it to apply ("" for
// nothing), and what refuses it without that; and where the viewer reads it. `line` is what main
// got, `run` the settings EngineSession started a run with.
struct OptionCase {
    Args option;
    Args beside;
    std::string refusedAlone;
    std::function<bool(const CommandLine& line, const RunSettings& run)> applied;
};

std::vector<OptionCase> optionCases(const std::string& trace, const std::string& dir) {
    using L = const CommandLine&;
    using R = const RunSettings&;
    const Args warm = {"--temperature", "0.8"};
    const Args mirostat = {"--temperature", "0.8", "--mirostat", "1"};
    return {
        {{"--model", std::string(ASSETS_DIR) + "/model"}, {}, "", [](L l, R) { return l.app.source.model.pathOrPreset == std::string(ASSETS_DIR) + "/model"; }},
        {{"--synthetic", "tiny"}, {}, "", [](L l, R) { return l.app.source.model.kind == ModelSource::Kind::Synthetic && l.app.source.model.pathOrPreset == "tiny"; }},
        {{"--tokenizer", "t.model"}, {}, "", [](L l, R) { return l.app.source.model.tokenizer == "t.model"; }},
        {{"--lora", "a.gguf:0.5"}, {}, "", [](L l, R) { return l.app.source.model.lora.size() == 1 && l.app.source.model.lora[0].scale == 0.5f; }},
        {{"--seed", "7"}, {}, "", [](L l, R r) { return r.sampling.seed == 7 && l.app.source.model.seed == 7; }},
        {{"--trace", trace}, {}, "", [trace](L l, R) { return l.app.source.trace == trace; }},
        {{"--compare", trace}, {"--trace", trace}, "--compare requires --trace", [trace](L l, R) { return l.app.source.compare == trace; }},
        {{"--script", "walk.txt"}, {}, "", [](L l, R) { return l.app.scriptPath == "walk.txt"; }},
        {{"--help-script"}, {}, "", [](L l, R) { return l.helpScript; }},
        {{"--prompt", "Hi there"}, {}, "", [](L, R r) { return r.prompt == "Hi there"; }},
        {{"--system", "Be brief."}, {"--chat"}, "--system applies only with --chat", [](L, R r) { return r.system == "Be brief."; }},
        {{"--chat"}, {}, "", [](L, R r) { return r.mode == PromptMode::Chat; }},
        {{"--completion"}, {}, "", [](L, R r) { return r.mode == PromptMode::Completion; }},
        {{"--allow-special"}, {"--chat"}, "--allow-special requires --chat", [](L, R r) { return r.allowSpecial; }},
        {{"--max-tokens", "3"}, {}, "", [](L, R r) { return r.maxTokens == 3; }},
        {{"--temperature", "0.5"}, {}, "", [](L, R r) { return r.sampling.temperature == 0.5f; }},
        {{"--top-k", "5"}, warm, "--top-k narrows the tokens a sampler draws from", [](L, R r) { return r.sampling.topK == 5; }},
        {{"--top-p", "0.5"}, warm, "--top-p narrows the tokens a sampler draws from", [](L, R r) { return r.sampling.topP == 0.5f; }},
        {{"--min-p", "0.1"}, warm, "--min-p narrows the tokens a sampler draws from", [](L, R r) { return r.sampling.minP == 0.1f; }},
        {{"--repeat-penalty", "1.1"}, {}, "", [](L, R r) { return r.sampling.repeatPenalty == 1.1f; }},
        {{"--repeat-last-n", "8"}, {}, "", [](L, R r) { return r.sampling.repeatLastN == 8; }},
        {{"--frequency-penalty", "1"}, {}, "", [](L, R r) { return r.sampling.frequencyPenalty == 1.0f; }},
        {{"--presence-penalty", "1"}, {}, "", [](L, R r) { return r.sampling.presencePenalty == 1.0f; }},
        {{"--mirostat", "2"}, warm, "mirostat samples: it needs a temperature above 0", [](L, R r) { return r.sampling.mirostat == 2; }},
        {{"--mirostat-tau", "3"}, mirostat, "--mirostat-tau requires --mirostat", [](L, R r) { return r.sampling.mirostatTau == 3.0f; }},
        {{"--mirostat-eta", "0.2"}, mirostat, "--mirostat-eta requires --mirostat", [](L, R r) { return r.sampling.mirostatEta == 0.2f; }},
        {{"--grammar", fixture("steer/words.gbnf")}, {}, "", [](L, R r) { return r.grammar && r.grammarSource == fixture("steer/words.gbnf"); }},
        {{"--grammar-text", "root ::= \"a\""}, {}, "", [](L, R r) { return r.grammar && r.grammarSource == "grammar"; }},
        {{"--json"}, {}, "", [](L, R r) { return r.grammar && r.grammarSource == "json"; }},
        {{"--no-mask"}, {}, "", [](L, R r) { return r.whatIf.noMask; }},
        {{"--no-kv-cache"}, {}, "", [](L, R r) { return r.whatIf.noKvCache; }},
        {{"--rope-theta", "5000"}, {}, "", [](L, R r) { return r.whatIf.ropeTheta == 5000.0; }},
        {{"--no-rope"}, {}, "", [](L, R r) { return r.whatIf.noRope; }},
        {{"--ablate-head", "1:2"}, {}, "", [](L, R r) { return r.whatIf.ablateHeads == std::set<std::pair<int, int>>{{0, 1}}; }},
        {{"--skip-layer", "2"}, {}, "", [](L, R r) { return r.whatIf.skipLayers == std::set<int>{1}; }},
        {{"--compute-dtype", "f32"}, {}, "", [](L, R r) { return r.whatIf.computeDType == DType::F32; }},
        {{"--control-vector", fixture("steer/joy.gguf")}, {}, "", [](L, R r) { return r.whatIf.steering != nullptr; }},
        {{"--control-vector-layers", "2-3"}, {"--control-vector", fixture("steer/joy.gguf")}, "--control-vector-layers requires --control-vector",
         [](L, R r) { return r.whatIf.steering && r.whatIf.steering->layers == std::pair{2, 3}; }},
        {{"--threads", "1"}, {}, "", [](L l, R) { return l.threads == 1; }},
        {{"--scale", "1.5"}, {}, "", [](L l, R) { return l.app.uiScale == 1.5f; }},
        {{"--width", "800"}, {}, "", [](L l, R) { return l.width == 800; }},
        {{"--height", "600"}, {}, "", [](L l, R) { return l.height == 600; }},
        {{"--chapters", dir}, {}, "", [dir](L l, R) { return l.app.chaptersDir == dir; }},
        {{"--font", "f.ttf"}, {}, "", [](L l, R) { return l.app.fontPath == "f.ttf"; }},
    };
}

bool replayApplies(const std::string& name) { return std::find(kReplayOptions.begin(), kReplayOptions.end(), name) != kReplayOptions.end(); }

Args operator+(Args a, const Args& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}
}  // namespace

TEST_CASE("every option llama-viewer accepts applies, or is refused before the window opens naming it", "[viewer][options]") {
    const fs::path dir = fs::temp_directory_path() / ("llama_viewer_options_" + std::to_string(getpid()));
    fs::create_directories(dir);
    const std::string trace = (dir / "run.trace").string();
    std::ofstream(trace) << "x";  // --compare checks it exists; nothing is read before the window opens
    const std::vector<OptionCase> cases = optionCases(trace, dir.string());

    // The table covers every option the viewer has: a new one must be decided here.
    {
        CommandLine line;
        std::vector<std::string> names = ViewerCommandLine(line).names(), tried;
        names.erase(std::remove(names.begin(), names.end(), "--help"), names.end());
        for (const OptionCase& c : cases) tried.push_back(c.option[0]);
        std::sort(names.begin(), names.end()), std::sort(tried.begin(), tried.end());
        CHECK(names == tried);
    }

    // A run's options are checked where EngineSession starts the run with them.
    EngineSession session;
    session.load({{ModelSource::Kind::Files, std::string(ASSETS_DIR) + "/model"}});
    REQUIRE(session.waitUntilSettled(60s));
    REQUIRE(session.status().state == SessionState::Ready);
    auto applied = [&](const OptionCase& c, const Parsed& p) {
        INFO(p.message);
        REQUIRE(p.ok);
        session.start(p.line.app.settings, StepController::Mode::Stage, true);
        const RunSettings run = session.settings();
        session.stop();
        CHECK(c.applied(p.line, run));
    };

    int appliedLive = 0, refusedLive = 0, appliedReplay = 0, refusedReplay = 0;
    for (const OptionCase& c : cases) {
        const std::string name = c.option[0];
        INFO(fmt::format("{}", fmt::join(c.option, " ")));
        // A live model: the option alone, then beside what it needs.
        const Parsed alone = parse(c.option);
        if (c.refusedAlone.empty()) {
            applied(c, alone), ++appliedLive;
        } else {
            CHECK_FALSE(alone.ok);
            CHECK_THAT(alone.message, Contains(c.refusedAlone));
            ++refusedLive;
            applied(c, parse(c.option + c.beside)), ++appliedLive;
        }
        // A replay: only the traces', the script's, the window's options and --threads apply.
        Args withTrace = c.option + c.beside;
        if (std::find(withTrace.begin(), withTrace.end(), "--trace") == withTrace.end()) withTrace = withTrace + Args{"--trace", trace};
        const Parsed replay = parse(withTrace);
        if (replayApplies(name)) {
            applied(c, replay), ++appliedReplay;
        } else {
            CHECK_FALSE(replay.ok);
            if (name == "--model" || name == "--synthetic")
                CHECK_THAT(replay.message, Contains(name + " and --trace cannot be used together"));
            else
                CHECK_THAT(replay.message, Contains(" not apply with --trace: a replay shows the recorded run") && Contains(name));
            ++refusedReplay;
        }
    }
    CHECK(cases.size() == 44);
    CHECK(appliedLive == 44);
    CHECK(refusedLive == 10);
    CHECK(appliedReplay == 10);
    CHECK(refusedReplay == 34);
    fs::remove_all(dir);
}

TEST_CASE("llama-viewer's refusals say why and what to do", "[viewer][options]") {
    const Parsed replay = parse({"--trace", "run.trace", "--temperature", "0.8", "--top-k", "5", "--no-mask"});
    CHECK(replay.message ==
          "--temperature, --top-k, --no-mask do not apply with --trace: a replay shows the recorded run, with its own model, prompt, sampling and "
          "what-ifs; leave them out, or give them without --trace to run the model with them");
    CHECK(parse({"--trace", "run.trace", "--seed", "3"}).message ==
          "--seed does not apply with --trace: a replay shows the recorded run, with its own model, prompt, sampling and what-ifs; leave it out, "
          "or give it without --trace to run the model with it");
    CHECK(parse({"--system", "Be brief."}).message ==
          "--system applies only with --chat: the viewer gives a system prompt to a chat prompt only; give --chat, or put the text at the start of "
          "--prompt");
    // The CLI's rules, from the same code (options/option_combinations.h).
    CHECK_THAT(parse({"--top-p", "0.9"}).message, Contains("at --temperature 0 (greedy, the default) the most likely token is taken without drawing: "
                                                           "give a temperature (llama.cpp's default is 0.8) or leave --top-p out"));
    CHECK_THAT(parse({"--temperature", "0.8", "--mirostat", "2", "--top-k", "5"}).message,
               Contains("mirostat replaces top-k, top-p, min-p and the repetition penalties"));
    // --help-script, as --help, only lists the script commands.
    CHECK(parse({"--help-script", "--top-k", "5"}).ok);
    // Together, what each needs given, they all apply.
    CHECK(parse({"--chat", "--system", "Be brief.", "--allow-special", "--temperature", "0.8", "--top-k", "5", "--top-p", "0.9", "--min-p", "0.05"}).ok);
}
