#pragma once
// llama-viewer's command line: the options it shares with llama-walkthrough (options/run_options.h:
// the model, the prompt and sampling, the what-ifs, --threads) and its own (--trace, --compare,
// --script, the window's). Every option given applies or is refused before the window opens
// (issue 46): a replay (--trace) shows a recorded run with its own model, prompt, sampling and
// what-ifs, so it refuses a run's options; --system, which the viewer gives a chat prompt only,
// needs --chat; and the run's rules the CLI checks too (options/option_combinations.h) hold.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "options/run_options.h"
#include "state/engine_session.h"

namespace llama::viewer {

// What the window is given.
struct AppOptions {
    ViewerSource source;
    RunSettings settings;
    std::string scriptPath;
    float uiScale = 1.0f;
    std::string chaptersDir;
    std::string fontPath;
};

// What the command line gives main: the window's options and what main applies itself.
struct CommandLine {
    AppOptions app;
    int threads = 0;             // 0: every core
    int width = 0, height = 0;   // 0: the screen's work area
    bool helpScript = false;
};

// The options a replay applies: the traces', the script's, the window's and --threads (the compute
// pool, which a model opened later from the File menu uses). Every other option is a run's.
extern const std::vector<std::string_view> kReplayOptions;

// The viewer's options on one CLI::App, bound to a CommandLine whose values stand where an option
// is not given (main sets the bundled model, the chapters and the font first).
class ViewerCommandLine {
public:
    explicit ViewerCommandLine(CommandLine& line);
    ViewerCommandLine(const ViewerCommandLine&) = delete;
    ViewerCommandLine& operator=(const ViewerCommandLine&) = delete;

    // Parses argv into the CommandLine. Returns an exit code when the program ends here (--help: 0;
    // a parse error, printed in the program's words: 1). Throws std::invalid_argument for an
    // option given that would not apply, naming it, why, and what to do instead.
    std::optional<int> parse(int argc, char** argv);
    // Every option's long name (--trace, --temperature, ...), --help included.
    std::vector<std::string> names() const;

private:
    void requireOptionsApply() const;

    CLI::App cli_{"llama-viewer: watch a Llama model compute, stage by stage"};
    CommandLine& line_;
    options::ModelChoice choice_;
    std::string trace_;
};

}  // namespace llama::viewer
