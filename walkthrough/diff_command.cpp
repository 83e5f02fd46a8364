#include "diff_command.h"

#include <fmt/format.h>

#include "model/model_args.h"
#include "options/checked_option.h"
#include "trace/patch_trace.h"
#include "trace/trace_diff.h"

namespace llama::cli {

CLI::App* addDiffCommand(CLI::App& app, DiffOptions& o) {
    CLI::App* cmd = app.add_subcommand("diff", "Pair two traces stage by stage: where they first diverge, the largest difference per layer");
    cmd->add_option("a", o.a, "A trace written by --trace (a patch trace: its clean run)")->required()->check(CLI::ExistingFile);
    cmd->add_option("b", o.b, "The trace to compare it with (a patch trace: its corrupted run; the same patch trace twice pairs its two runs)")
        ->required()
        ->check(CLI::ExistingFile);
    options::addInteger(*cmd, "--step", o.step, {0, ModelArgs::kMaxPositions, "a step from 0 (the prefill) upwards"},
                        "Only this token step in the table (0 = the prefill)")
        ->default_str("");
    return cmd;
}

namespace {
// A patch trace holds two runs: the clean one stands as A, the corrupted one as B, so that
// `diff P.trace P.trace` shows where the corruption changes the run.
TraceRun readRun(const std::string& path, bool clean) {
    if (!isPatchTrace(path)) return readTrace(path);
    PatchTrace patch = readPatchTrace(path);
    return std::move(clean ? patch.clean : patch.corrupt);
}
}  // namespace

int runDiff(const DiffOptions& o) {
    const TraceRun a = readRun(o.a, true), b = readRun(o.b, false);
    const TraceDiff diff = diffTraces(a, b);
    fmt::print("{}", formatTraceDiff(diff, a, b, o.a, o.b, o.step >= 0 ? std::optional(o.step) : std::nullopt));
    return diff.firstDivergence || diff.unpairedA || diff.unpairedB ? 2 : 0;
}

}  // namespace llama::cli
