#include "patch_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "interrupt.h"
#include "io/atomic_output.h"
#include "pass_progress.h"
#include "patch_trace_output.h"
#include "session/model_source.h"
#include "stages/stage_event.h"

namespace llama::cli {

CLI::App* addPatchCommand(CLI::App& app, PatchOptions& o) {
    CLI::App* cmd = app.add_subcommand("patch", "Activation patching: rerun a corrupted prompt with one layer's activation at one position taken "
                                                "from a clean run, for every layer and position, and show how much of the answer comes back");
    cmd->add_option("--model", o.model, "Model directory or .gguf file; default: the bundled model");
    cmd->add_option("--clean", o.setup.clean, "The prompt whose answer is known")->required();
    cmd->add_option("--corrupt", o.setup.corrupt, "The same prompt with the clue changed: the same number of tokens")->required();
    cmd->add_option("--answer", o.setup.answer, "The clean prompt's answer, one token (\" Aaron\", leading space and all)")->required();
    cmd->add_option("--wrong", o.setup.wrong, "The token the answer competes with (default: the corrupted prompt's most likely token)");
    cmd->add_option("--site", o.site, "What is patched: block (the block's output, the residual stream) or attention (the attention's output)")
        ->check(CLI::IsMember({"block", "attention"}));
    cmd->add_flag("--heads", o.setup.heads, "Per layer and attention head instead (--site does not apply): that head's output from the clean run, at every position");
    cmd->add_option("--csv", o.csv, "Also write every layer and position (or head) to FILE as CSV");
    cmd->add_option("--trace", o.trace,
                    "Also write a patch trace to FILE: the grid and both runs recorded, which llama-viewer and export-html show as a heatmap "
                    "whose cells open the patched stage in both runs");
    cmd->add_option("--align", o.align,
                    "Prompts of different token counts: same (refuse them, the default), start (position i pairs with position i from BOS "
                    "on; the longer prompt's last tokens are not patched) or end (the last tokens pair, where the answer is read; the "
                    "longer prompt's first tokens are not patched). A row moves to its partner's position: Llama has no pad token, and "
                    "its residual stream no position embedding")
        ->check(CLI::IsMember({"same", "start", "end"}));
    return cmd;
}

namespace {
std::string csvQuoted(const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

// Layers by positions; a column is headed by its token, "clean/corrupted" where they differ.
void printPositions(const PatchingResult& r, const Tokenizer& tok, const std::string& site) {
    fmt::print("Recovered logit difference (1 = clean, 0 = corrupted) with the {} output of one layer at one position from the clean run:\n", site);
    if (r.cleanPosition != r.corruptPosition)
        fmt::print("Columns pair clean position {}.. with corrupted position {}..; the longer prompt's other {} positions are not patched.\n",
                   r.cleanPosition[0], r.corruptPosition[0], std::max(r.cleanTokens.size(), r.corruptTokens.size()) - r.cleanPosition.size());
    fmt::print("{:>5}", "layer");
    for (size_t c = 0; c < r.cleanPosition.size(); ++c) {
        const int32_t a = r.cleanTokens[size_t(r.cleanPosition[c])], b = r.corruptTokens[size_t(r.corruptPosition[c])];
        std::string h = tok.pieceForDisplay(a);
        if (a != b) h += "/" + tok.pieceForDisplay(b);
        fmt::print(" {:>14}", fmt::format("\"{}\"", h.size() > 14 ? h.substr(0, 13) + "~" : h).substr(0, 14));
    }
    fmt::print("\n");
    for (size_t l = 0; l < r.patchedDiff.size(); ++l) {
        fmt::print("{:>5}", l + 1);
        for (size_t c = 0; c < r.cleanPosition.size(); ++c) fmt::print(" {:>14.2f}", r.recovered(int(l), int(c)));
        fmt::print("\n");
    }
}

void printHeads(const PatchingResult& r) {
    fmt::print("Recovered logit difference (1 = clean, 0 = corrupted) with one attention head's output at every position from the clean run:\n");
    fmt::print("{:>5}", "layer");
    for (size_t h = 0; h < r.patchedDiff[0].size(); ++h) fmt::print(" {:>7}", fmt::format("head {}", h + 1));
    fmt::print("\n");
    for (size_t l = 0; l < r.patchedDiff.size(); ++l) {
        fmt::print("{:>5}", l + 1);
        for (size_t h = 0; h < r.patchedDiff[l].size(); ++h) fmt::print(" {:>7.2f}", r.recovered(int(l), int(h)));
        fmt::print("\n");
    }
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
    PatchingSetup setup = o.setup;
    setup.align = alignFromName(o.align);
    setup.site = o.site == "attention" ? ActivationPatch::Site::AttentionOutput : ActivationPatch::Site::BlockOutput;
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
    const std::string answer = tok.pieceForDisplay(r.answer), wrong = tok.pieceForDisplay(r.wrong);
    fmt::print("clean:   logit \"{}\" - logit \"{}\" = {:.4f}\n", answer, wrong, r.cleanDiff);
    fmt::print("corrupt: logit \"{}\" - logit \"{}\" = {:.4f}\n", answer, wrong, r.corruptDiff);
    if (setup.heads) printHeads(r);
    else printPositions(r, tok, o.site);
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
