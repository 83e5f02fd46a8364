#pragma once
// A model to train: from scratch with assets/train.py's initialisation, or from an existing
// model's weights (fine-tuning); F32 master weights either way.
#include <cstdint>
#include <memory>

#include "model/model.h"

namespace llama {

// Every matrix drawn from a normal distribution of standard deviation 0.02, the two that write
// into the residual stream (attn_wo, ffn_down) 0.02 / sqrt(2 * n_layers) (GPT-2's scaling, so
// that the stream's variance does not grow with depth); every norm's weights 1. Seeded: the same
// seed gives the same bits on every machine.
Model initialModel(const ModelArgs& args, uint64_t seed, std::shared_ptr<const Tokenizer> tokenizer);

// An existing model, loaded as the engine loads models, as the start of training: its shape
// (with a context of maxSeqLen) and tokenizer, every weight copied out as F32 (exact from BF16), in
// initialModel's order. Another dtype (a quantized one) is refused by name: training updates F32
// master weights, and a block's rounding cannot be undone.
Model trainableModel(const Model& source, int maxSeqLen);

}  // namespace llama
