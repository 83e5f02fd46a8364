#include "diff_command.h"

#include <fmt/format.h>

#include "model/model_args.h"
#include "options/checked_option.h"
#include "trace/trace_diff.h"

namespace llama::cli {

CLI::App* addDiffCommand(CLI::App& app, DiffOptions& o) {
    CLI::App* cmd = app.add_subcommand("diff", "Pair two traces stage by stage: where they first diverge, the largest difference per layer");
    cmd->add_option("a", o.a, "A trace written by --trace")->required()->check(CLI::ExistingFile);
    cmd->add_option("b", o.b, "The trace to compare it with")->required()->check(CLI::ExistingFile);
    options::addInteger(*cmd, "--step", o.step, {0, ModelArgs::kMaxPositions, "a step from 0 (the prefill) upwards"},
                        "Only this token step in the table (0 = the prefill)")
        ->default_str("");
    return cmd;
}

int runDiff(const DiffOptions& o) {
    const TraceRun a = readTrace(o.a), b = readTrace(o.b);
    const TraceDiff diff = diffTraces(a, b);
    fmt::print("{}", formatTraceDiff(diff, a, b, o.a, o.b, o.step >= 0 ? std::optional(o.step) : std::nullopt));
    return diff.firstDivergence || diff.unpairedA || diff.unpairedB ? 2 : 0;
}

}  // namespace llama::cli
