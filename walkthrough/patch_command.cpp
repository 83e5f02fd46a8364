#include "patch_command.h"

#include <fmt/format.h>

#include "io/atomic_output.h"
#include "session/model_source.h"

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
    cmd->add_option("--csv", o.csv, "Also write every layer and position to FILE as CSV");
    return cmd;
}

int runPatch(const PatchOptions& o) {
    if (!o.csv.empty()) checkOutputPath("--csv", o.csv, {o.model});
    PatchingSetup setup = o.setup;
    setup.site = o.site == "attention" ? ActivationPatch::Site::AttentionOutput : ActivationPatch::Site::BlockOutput;
    const Model model = loadModelSource({ModelSource::Kind::Files, o.model}, {});
    const PatchingResult r = runActivationPatching(model, setup);
    const Tokenizer& tok = *model.tokenizer;
    const std::string answer = tok.pieceForDisplay(r.answer), wrong = tok.pieceForDisplay(r.wrong);
    fmt::print("clean:   logit \"{}\" - logit \"{}\" = {:.4f}\n", answer, wrong, r.cleanDiff);
    fmt::print("corrupt: logit \"{}\" - logit \"{}\" = {:.4f}\n", answer, wrong, r.corruptDiff);
    fmt::print("Recovered logit difference (1 = clean, 0 = corrupted) with the {} output of one layer at one position from the clean run:\n",
               o.site == "attention" ? "attention" : "block");
    // Columns: the position, then the clean and corrupted tokens where they differ.
    std::vector<std::string> heads;
    for (size_t p = 0; p < r.cleanTokens.size(); ++p) {
        std::string h = tok.pieceForDisplay(r.cleanTokens[p]);
        if (r.corruptTokens[p] != r.cleanTokens[p]) h += "/" + tok.pieceForDisplay(r.corruptTokens[p]);
        heads.push_back(h.size() > 14 ? h.substr(0, 13) + "~" : h);
    }
    fmt::print("{:>5}", "layer");
    for (const auto& h : heads) fmt::print(" {:>14}", fmt::format("\"{}\"", h).substr(0, 14));
    fmt::print("\n");
    for (size_t l = 0; l < r.patchedDiff.size(); ++l) {
        fmt::print("{:>5}", l + 1);
        for (size_t p = 0; p < r.cleanTokens.size(); ++p) fmt::print(" {:>14.2f}", r.recovered(int(l), int(p)));
        fmt::print("\n");
    }
    if (!o.csv.empty()) {
        AtomicOutputFile out(o.csv);
        out.stream() << "layer,position,clean_token,corrupt_token,patched_logit_diff,recovered\n";
        auto quoted = [](std::string s) {
            std::string q = "\"";
            for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
            return q + "\"";
        };
        for (size_t l = 0; l < r.patchedDiff.size(); ++l)
            for (size_t p = 0; p < r.cleanTokens.size(); ++p)
                out.stream() << fmt::format("{},{},{},{},{:.6f},{:.6f}\n", l + 1, p, quoted(tok.pieceForDisplay(r.cleanTokens[p])),
                                            quoted(tok.pieceForDisplay(r.corruptTokens[p])), r.patchedDiff[l][p], r.recovered(int(l), int(p)));
        out.commit();
        fmt::print("Wrote {}\n", o.csv);
    }
    return 0;
}

}  // namespace llama::cli
