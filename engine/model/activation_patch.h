#pragma once
// Activation patching (Vig et al. 2020, Meng et al. 2022; TransformerLens's patching): one
// activation of this run, at one layer and position, replaced by the same activation of another
// run, to see how much of that run's answer it brings back. The patch command (steer/
// activation_patching.h) makes one per layer and position; the block applies it.
#include <cstdint>
#include <string>
#include <vector>

#include "model/position_and_cell.h"
#include "tensor/tensor.h"

namespace llama {

struct ActivationPatch {
    enum class Site { AttentionOutput, BlockOutput };
    Site site = Site::BlockOutput;
    int layer = 0;     // 0-based block
    int position = 0;  // absolute position in the sequence; -1: every position, `row` holding one row each
    std::vector<float> row;  // dim values from the other run (per position when position is -1)
    std::string source;      // where the row comes from, for the banner: "the clean prompt"
    // Added to the activation instead of replacing it: one head's share of the attention output
    // (attn_wo times the change in that head's output), for patching a single head.
    bool add = false;
    int head = -1;  // the head that share is of (for the banner)

    // `activation` ([rows, dim], rows from startPos) with the patched positions' rows replaced (or
    // added to); the same tensor when this pass holds none of them.
    Tensor apply(const Tensor& activation, Position startPos) const;
    // "block output of layer 3 at position 5 from the clean prompt" (layers from 1).
    std::string describe() const;
};

const char* siteName(ActivationPatch::Site site);  // "block", "attention"

}  // namespace llama
