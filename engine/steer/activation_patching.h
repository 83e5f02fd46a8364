#pragma once
// Activation patching: run a clean prompt and a corrupted one of the same length, then rerun the
// corrupted one once per layer and position with that one activation (a block's output, or its
// attention's output before the residual) taken from the clean run, and measure how much of the
// clean answer comes back: the logit difference answer - wrong at the last position, normalised
// so that 1 is the clean run's and 0 the corrupted run's. With `heads`, once per layer and
// attention head instead, that head's output taken from the clean run at every position. Where a patch restores the answer, the
// information that decides it flows through that layer at that position.
#include <atomic>
#include <cstdint>
#include <functional>
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
    // Prompts of different token counts: which positions pair up. Same: none may differ (refused).
    // Start: position i with position i (BOS with BOS), the longer prompt's tail unpaired. End: the
    // last tokens pair (the position the answer is read at), the longer prompt's head unpaired, as
    // TransformerLens's left padding lines up prompts' ends. Llama has no pad token and its
    // residual stream no position embedding (RoPE turns queries and keys inside attention), so a
    // row is moved to its partner's position instead of padding either prompt.
    enum class Align { Same, Start, End };
    Align align = Align::Same;
};

struct PatchingResult {
    std::vector<int32_t> cleanTokens, corruptTokens;
    int32_t answer = -1, wrong = -1;
    double cleanDiff = 0, corruptDiff = 0;  // logit(answer) - logit(wrong) at the last position
    // Per column of the position grid, the paired positions in each prompt (equal unless aligned).
    std::vector<int> cleanPosition, corruptPosition;
    std::vector<std::vector<double>> patchedDiff;  // [layer][column of paired positions], or [layer][head] with heads
    // (patched - corrupt) / (clean - corrupt).
    double recovered(int layer, int column) const;
};

// A grid is a forward pass per cell, layers x positions of the whole prompt each: minutes for a few
// hundred tokens, hours for a thousand. So the caller hears of every pass and may end the grid.
struct PatchingWatch {
    // (0, total) as the passes begin, then after each: passes done and in all (the clean and
    // corrupted runs, then the grid's).
    std::function<void(int64_t done, int64_t total)> passDone;
    // Set (from any thread or a signal handler): the pass under way ends at its next stage, and
    // runActivationPatching throws GenerationStopped.
    const std::atomic<bool>* stop = nullptr;
};

// Throws std::invalid_argument for prompts of different token counts (unless aligned), an answer or wrong token
// that is not one token, or runs whose logit differences are equal (nothing to recover).
PatchingResult runActivationPatching(const Model& model, const PatchingSetup& setup, const PatchingWatch& watch = {});

// "same", "start", "end" <-> PatchingSetup::Align.
const char* alignName(PatchingSetup::Align align);
PatchingSetup::Align alignFromName(const std::string& name);

}  // namespace llama
