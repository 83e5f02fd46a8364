#pragma once
// llama_decode: a batch of tokens of any sequences through the model, the way llama.cpp does it.
// The batch is split into ubatches of at most nUbatch tokens; before the first, cached keys whose
// cells were shifted (KvCells::seqAdd) are rotated on by their delta; each ubatch gets
// n_tokens consecutive cells (find_slot) and one forward pass whose mask comes from the cells.
#include "model/llama_batch.h"
#include "model/llama_transformer.h"

namespace llama {

struct DecodeOutputs {
    Tensor logits;                // F32 [n_outputs, VocabSize]
    std::vector<int> outputOfToken;  // per batch token: its row in logits, or -1 (no logits wanted)
};

// Throws std::invalid_argument when a token's position is out of the angle table, a sequence id
// is negative, or the cache has no n_tokens consecutive free cells (saying how many are used).
DecodeOutputs llamaDecode(InferenceContext& ctx, const LlamaTransformer& transformer, const LlamaBatch& batch, int nUbatch);

// The K-shift alone (llama_kv_cache_update): every layer's cached key in a cell with a delta is
// rotated by delta positions, then the deltas are cleared. A key rotated for position p and then
// by delta equals the key rotated for p + delta (tested against recomputing it).
void shiftCachedKeys(InferenceContext& ctx, const LlamaTransformer& transformer);

}  // namespace llama
