#pragma once
// Perplexity as llama.cpp's `llama-perplexity` measures it, the usual yardstick of what
// quantization costs a model. The token ids of a text are cut into chunks of `ctx` tokens (a
// tail shorter than ctx is dropped); each chunk is one forward pass from position 0 with its first
// token replaced by BOS. Only the second half of a chunk is scored, so every scored token has at
// least ctx/2 tokens of context: with first = ctx/2, the logits at positions first .. ctx-2
// predict the tokens at first+1 .. ctx-1. PPL = exp(mean of -ln p(token)) over every scored token.
#include <cstdint>
#include <vector>

#include "model/model.h"

namespace llama {

struct PerplexityResult {
    int ctx = 0;
    int chunks = 0;
    int scoredPerChunk = 0;
    std::vector<double> runningPpl;  // after each chunk, as llama.cpp prints [1]..., [2]...
    double ppl = 0;
    double pplError = 0;  // the standard error of the mean -ln p, carried to the PPL (ppl * se)
};

// ids: the text's tokens (without BOS). Throws std::invalid_argument when ctx < 4 or the text
// has fewer than ctx tokens (saying how many it has); maxChunks 0 means every chunk.
PerplexityResult computePerplexity(const Model& model, const std::vector<int32_t>& ids, int ctx, int maxChunks = 0);

}  // namespace llama
