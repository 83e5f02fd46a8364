#pragma once
// `llama-walkthrough diff A.trace B.trace`: where two recorded runs first diverge, and the largest
// difference per stage and layer (trace/trace_diff.h).
#include <CLI/CLI.hpp>
#include <string>

namespace llama::cli {

struct DiffOptions {
    std::string a, b;
    int step = -1;  // -1: the table covers every step
};

CLI::App* addDiffCommand(CLI::App& app, DiffOptions& options);
// Prints the report; 0 when the runs do not diverge, 2 when they do (1 stays for errors).
int runDiff(const DiffOptions& options);

}  // namespace llama::cli
