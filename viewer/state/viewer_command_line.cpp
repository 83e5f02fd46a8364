#include "state/viewer_command_line.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "options/checked_option.h"
#include "options/option_combinations.h"
#include "state/view_state.h"

namespace llama::viewer {

const std::vector<std::string_view> kReplayOptions = {"--trace", "--compare", "--script", "--help-script", "--threads",
                                                      "--scale", "--width",   "--height", "--chapters",    "--font"};

namespace {
// The viewer's own rule: its system box belongs to chat mode. A completion prompt leaves it out
// (state/engine_session.cpp), where the CLI reads it as text before the prompt.
const std::vector<options::Combination> kViewerCombinations = {
    {{"--system"}, {"--chat"}, true, "the viewer gives a system prompt to a chat prompt only; give --chat, or put the text at the start of --prompt"},
};
}  // namespace

ViewerCommandLine::ViewerCommandLine(CommandLine& line) : line_(line) {
    AppOptions& o = line.app;
    choice_.model = o.source.model.pathOrPreset;  // main's default: the bundled model
    options::addModelOptions(cli_, choice_, o.settings.sampling.seed);
    auto* traceOption = cli_.add_option("--trace", trace_, "Replay a trace written by llama-walkthrough --trace")
                            ->excludes(cli_.get_option("--model"))
                            ->excludes(cli_.get_option("--synthetic"));
    cli_.add_option("--compare", o.source.compare, "A second trace to compare the replayed one with, stage by stage (the Compare panel)")
        ->needs(traceOption)
        ->check(CLI::ExistingFile);
    cli_.add_option("--script", o.scriptPath, "Run a scripted walk-through (see --help-script)");
    cli_.add_flag("--help-script", line.helpScript, "List the script commands");
    options::addGenerationOptions(cli_, o.settings);
    options::addWhatIfOptions(cli_, o.settings.whatIf);
    options::addThreadsOption(cli_, line.threads);
    options::addReal(cli_, "--scale", o.uiScale, {kMinUiScale, kMaxUiScale, false, fmt::format("a UI scale from {} to {}", kMinUiScale, kMaxUiScale)},
                     "UI scale for projectors");
    options::addInteger(cli_, "--width", line.width, {640, 7680, "a width from 640 to 7680 pixels"}, "Window width (default: the screen's work area)");
    options::addInteger(cli_, "--height", line.height, {480, 4320, "a height from 480 to 4320 pixels"}, "Window height (default: the screen's work area)");
    cli_.add_option("--chapters", o.chaptersDir, "Directory of the chapter files");
    cli_.add_option("--font", o.fontPath, "TrueType font for the UI (one that is not a valid TrueType file falls back to the built-in font)");
}

std::optional<int> ViewerCommandLine::parse(int argc, char** argv) {
    if (auto code = options::parseCommandLine(cli_, argc, argv)) return code;
    line_.app.source.model = choice_.source(line_.app.settings.sampling.seed);
    line_.app.source.trace = trace_;
    if (!line_.helpScript) requireOptionsApply();  // --help-script, as --help, only lists
    return std::nullopt;
}

std::vector<std::string> ViewerCommandLine::names() const {
    std::vector<std::string> names;
    for (const CLI::Option* option : cli_.get_options()) names.push_back(option->get_name());
    return names;
}

void ViewerCommandLine::requireOptionsApply() const {
    if (options::given(cli_, "--trace")) {
        std::vector<std::string> run;  // every one given, so one message names them all
        for (const CLI::Option* option : cli_.get_options())
            if (option->count() > 0 && std::find(kReplayOptions.begin(), kReplayOptions.end(), option->get_name()) == kReplayOptions.end())
                run.push_back(option->get_name());
        if (!run.empty()) {
            const bool one = run.size() == 1;
            throw std::invalid_argument(fmt::format("{} {} not apply with --trace: a replay shows the recorded run, with its own model, prompt, sampling "
                                                    "and what-ifs; leave {} out, or give {} without --trace to run the model with {}",
                                                    fmt::join(run, ", "), one ? "does" : "do", one ? "it" : "them", one ? "it" : "them", one ? "it" : "them"));
        }
    }
    options::requireCombinations(cli_, kViewerCombinations);
    options::requireRunOptionsCombine(cli_);
    // What the sampler would refuse at the first Run (mirostat without a temperature, or beside the
    // filters it replaces), refused before the window opens.
    validateSamplingSettings(line_.app.settings.sampling);
}

}  // namespace llama::viewer
