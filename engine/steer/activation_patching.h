#pragma once
// Activation patching: run a clean prompt and a corrupted one of the same length, then rerun the
// corrupted one once per layer and position with that one activation (a block's output, or its
// attention's output before the residual) taken from the clean run, and measure how much of the
// clean answer comes back: the logit difference answer - wrong at the last position, normalised
// so that 1 is the clean run's and 0 the corrupted run's. With `heads`, once per layer and
// attention head instead, that head's output taken from the clean run at every position. Where a patch restores the answer, the
// information that decides it flows through that layer at that position.
#include <cstdint>
#include <string>
#include <vector>

#include "model/activation_patch.h"
#include "model/model.h"

namespace llama {

struct PatchingSetup {
    std::string clean, corrupt;  // prompts (completion prompts: BOS, then the text)
    std::string answer;          // the clean run's answer, one token (" Aaron")
    std::string wrong;           // the token it competes with; empty: the corrupted run's most likely token
    ActivationPatch::Site site = ActivationPatch::Site::BlockOutput;
    // Per layer and head instead of per layer and position: one head's output, at every position,
    // from the clean run. Its share of the attention output is attn_wo times the change in the
    // head's output (attn_wo is linear), added to the corrupted run's.
    bool heads = false;
};

struct PatchingResult {
    std::vector<int32_t> cleanTokens, corruptTokens;
    int32_t answer = -1, wrong = -1;
    double cleanDiff = 0, corruptDiff = 0;  // logit(answer) - logit(wrong) at the last position
    std::vector<std::vector<double>> patchedDiff;  // [layer][position], or [layer][head] with heads
    // (patched - corrupt) / (clean - corrupt).
    double recovered(int layer, int column) const;
};

// Throws std::invalid_argument for prompts of different token counts, an answer or wrong token
// that is not one token, or runs whose logit differences are equal (nothing to recover).
PatchingResult runActivationPatching(const Model& model, const PatchingSetup& setup);

}  // namespace llama
