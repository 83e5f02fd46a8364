#include "patch_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "interrupt.h"
#include "io/atomic_output.h"
#include "pass_progress.h"
#include "patch_table.h"
#include "patch_trace_output.h"
#include "session/model_source.h"
#include "stages/stage_event.h"

namespace llama::cli {

CLI::App* addPatchCommand(CLI::App& app, PatchOptions& o) {
    CLI::App* cmd = app.add_subcommand("patch", "Activation patching: rerun a corrupted prompt with one layer's activation at one position taken "
                                                "from a clean run, for every layer and position, and show how much of the answer comes back");
    cmd->add_option("--model", o.model, "Model directory or .gguf file; default: the bundled model");
    options::addPatchOptions(*cmd, o.patch);
    cmd->add_option("--csv", o.csv, "Also write every layer and position (or head) to FILE as CSV");
    cmd->add_option("--trace", o.trace,
                    "Also write a patch trace to FILE: the grid and both runs recorded, which llama-viewer and export-html show as a heatmap "
                    "whose cells open the patched stage in both runs");
    return cmd;
}

namespace {
std::string csvQuoted(const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

void writeCsv(const std::string& path, const PatchingResult& r, const Tokenizer& tok, bool heads) {
    AtomicOutputFile out(path);
    out.stream() << (heads ? "layer,head,patched_logit_diff,recovered\n" : "layer,position,clean_token,corrupt_token,patched_logit_diff,recovered\n");
    for (size_t l = 0; l < r.patchedDiff.size(); ++l)
        for (size_t c = 0; c < r.patchedDiff[l].size(); ++c) {
            const std::string where = heads ? std::to_string(c + 1)
                                            : fmt::format("{},{},{}", r.corruptPosition[c], csvQuoted(tok.pieceForDisplay(r.cleanTokens[size_t(r.cleanPosition[c])])),
                                                          csvQuoted(tok.pieceForDisplay(r.corruptTokens[size_t(r.corruptPosition[c])])));
            out.stream() << fmt::format("{},{},{:.6f},{:.6f}\n", l + 1, where, r.patchedDiff[l][c], r.recovered(int(l), int(c)));
        }
    out.commit();
}
}  // namespace

int runPatch(const PatchOptions& o) {
    if (!o.csv.empty()) checkOutputPath("--csv", o.csv, {o.model});
    if (!o.trace.empty()) checkOutputPath("--trace", o.trace, {o.model}, {o.csv});
    const PatchingSetup setup = o.patch.patchingSetup();
    const Model model = loadModelSource({ModelSource::Kind::Files, o.model}, {});
    // Nothing is printed or written before the grid is complete, so an interrupted grid leaves nothing half done.
    const InterruptFlag interrupt;
    PassProgress progress("patch", "forward passes");
    PatchingResult r;
    try {
        r = runActivationPatching(model, setup, {std::ref(progress), &InterruptFlag::requested});
    } catch (const GenerationStopped&) {
        progress.finish();
        std::string outputs = "the table";
        if (!o.csv.empty()) outputs += o.trace.empty() ? " and --csv" : ", --csv";
        if (!o.trace.empty()) outputs += " and --trace";
        fmt::print(stderr, "patch: stopped by Ctrl-C after {} of {} forward passes; nothing was printed or written ({} come only once every pass "
                           "is done). Each layer and {} is a pass over the whole prompt: shorter prompts need fewer\n",
                   progress.done(), progress.total(), outputs, setup.heads ? "head" : "position");
        return 130;
    }
    progress.finish();
    const Tokenizer& tok = *model.tokenizer;
    fmt::print("{}", patchTable(r, tok, o.patch.site, setup.heads));
    if (!o.csv.empty()) {
        writeCsv(o.csv, r, tok, setup.heads);
        fmt::print("Wrote {}\n", o.csv);
    }
    if (!o.trace.empty()) {
        try {
            writePatchingTrace(o.trace, model, setup, r, &InterruptFlag::requested);
        } catch (const GenerationStopped&) {
            fmt::print(stderr, "patch: stopped by Ctrl-C while recording the runs for --trace; {} was not written (the table above{} is complete)\n",
                       o.trace, o.csv.empty() ? "" : " and --csv");
            return 130;
        }
        fmt::print("Wrote {} (open it with llama-viewer --trace, or export-html)\n", o.trace);
    }
    return 0;
}

}  // namespace llama::cli
