#pragma once
// `llama-viewer --script FILE`: a walk-through written as one command per line, so a test (or a
// README screenshot) drives the viewer as a person would. Parsing is separate from running so
// a typo is reported with its line number before anything starts.
#include <string>
#include <vector>

namespace llama::viewer {

struct ScriptCommand {
    int line = 0;
    std::string name;
    std::vector<std::string> args;
};

struct ScriptCommandInfo {
    const char* name;
    int minArgs, maxArgs;
    const char* help;
};

// Every command the runner knows, with its arguments (also printed by --help-script).
const std::vector<ScriptCommandInfo>& scriptCommands();

// Words separated by spaces, "double quotes" group (\" and \\ escape inside), # starts a comment.
// Throws std::invalid_argument "FILE:LINE: ..." for unknown commands or wrong argument counts.
std::vector<ScriptCommand> parseScript(const std::string& text, const std::string& sourceName);
std::vector<ScriptCommand> loadScript(const std::string& path);

}  // namespace llama::viewer
