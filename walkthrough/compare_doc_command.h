#pragma once
// `llama-walkthrough compare-doc DOC.md --log debug.log`: checks the [DEBUG] lines a document
// quotes against a real debug log: shapes and the values written in each line.
#include <CLI/CLI.hpp>
#include <string>

namespace llama::cli {

struct CompareDocOptions {
    std::string document;
    std::string log;
    bool anyLength = false;
};

CLI::App* addCompareDocCommand(CLI::App& app, CompareDocOptions& options);
// Prints the table; 0 when every documented line has a partner that says the same (or differs
// only where the document contradicts itself), else 1.
int runCompareDoc(const CompareDocOptions& options);

}  // namespace llama::cli
