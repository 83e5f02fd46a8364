#include "patch_options.h"

namespace llama::options {

void addPatchOptions(CLI::App& cmd, PatchSettings& o) {
    cmd.add_option("--clean", o.setup.clean, "The prompt whose answer is known")->required();
    cmd.add_option("--corrupt", o.setup.corrupt, "The same prompt with the clue changed: the same number of tokens")->required();
    cmd.add_option("--answer", o.setup.answer, "The clean prompt's answer, one token (\" Aaron\", leading space and all)")->required();
    cmd.add_option("--wrong", o.setup.wrong, "The token the answer competes with (default: the corrupted prompt's most likely token)");
    cmd.add_option("--site", o.site, "What is patched: block (the block's output, the residual stream) or attention (the attention's output)")
        ->check(CLI::IsMember({"block", "attention"}));
    cmd.add_flag("--heads", o.setup.heads, "Per layer and attention head instead (--site does not apply): that head's output from the clean run, at every position");
    cmd.add_option("--align", o.align,
                   "Prompts of different token counts: same (refuse them, the default), start (position i pairs with position i from BOS "
                   "on; the longer prompt's last tokens are not patched) or end (the last tokens pair, where the answer is read; the "
                   "longer prompt's first tokens are not patched). A row moves to its partner's position: Llama has no pad token, and "
                   "its residual stream no position embedding")
        ->check(CLI::IsMember({"same", "start", "end"}));
}

PatchingSetup PatchSettings::patchingSetup() const {
    PatchingSetup s = setup;
    s.align = alignFromName(align);
    s.site = site == "attention" ? ActivationPatch::Site::AttentionOutput : ActivationPatch::Site::BlockOutput;
    return s;
}

}  // namespace llama::options
