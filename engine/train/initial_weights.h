#pragma once
// A model to train from scratch: assets/train.py's initialisation, F32 master weights.
#include <cstdint>
#include <memory>

#include "model/model.h"

namespace llama {

// Every matrix drawn from a normal distribution of standard deviation 0.02, the two that write
// into the residual stream (attn_wo, ffn_down) 0.02 / sqrt(2 * n_layers) (GPT-2's scaling, so
// that the stream's variance does not grow with depth); every norm's weights 1. Seeded: the same
// seed gives the same bits on every machine.
Model initialModel(const ModelArgs& args, uint64_t seed, std::shared_ptr<const Tokenizer> tokenizer);

}  // namespace llama
