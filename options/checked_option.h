#pragma once
// CLI11 options whose values are read by checked_number.h. A refusal becomes CLI11's
// ValidationError ("--skip-layer: expected a layer from 1 upwards, got '0'"), so no exception of
// ours escapes a CLI11 callback, and parseCommandLine turns every parse error into exit code 1.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checked_number.h"

namespace llama::options {

// `names` as CLI11 takes them ("-n,--max-tokens"); the current value of `target` is shown as the default.
CLI::Option* addInteger(CLI::App& app, const std::string& names, int& target, const IntegerRange& range, const std::string& help);
CLI::Option* addIntegerList(CLI::App& app, const std::string& names, std::vector<int>& target, const IntegerRange& range,
                            const std::string& help);
CLI::Option* addUnsigned(CLI::App& app, const std::string& names, uint64_t& target, const std::string& expected, const std::string& help);
CLI::Option* addReal(CLI::App& app, const std::string& names, float& target, const RealRange& range, const std::string& help);
CLI::Option* addReal(CLI::App& app, const std::string& names, double& target, const RealRange& range, const std::string& help);

// app.parse with CLI11's help and version output; any refusal prints its message in the program's
// words (cli_messages.h) and returns 1 (CLI11's own codes, 105 and up, are not what a shell script
// checks). nullopt: go on.
std::optional<int> parseCommandLine(CLI::App& app, int argc, char** argv);

}  // namespace llama::options
