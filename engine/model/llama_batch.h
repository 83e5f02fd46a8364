#pragma once
// What one llama_decode call takes (llama.cpp's llama_batch): tokens of one or more sequences,
// each with its position, the sequences it belongs to, and whether its logits are wanted.
// A prompt's tokens usually want no logits but the last one's; a decode step's token wants them.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace llama {

struct LlamaBatch {
    std::vector<int32_t> token;
    std::vector<int32_t> pos;
    std::vector<std::vector<int>> seqIds;  // a token may belong to several sequences at once
    std::vector<bool> logits;

    // common_batch_add in llama.cpp's examples.
    void add(int32_t id, int32_t position, std::vector<int> seqs, bool wantLogits) {
        token.push_back(id);
        pos.push_back(position);
        seqIds.push_back(std::move(seqs));
        logits.push_back(wantLogits);
    }
    void clear() { *this = {}; }
    int size() const { return int(token.size()); }
    int nOutputs() const;  // tokens whose logits are wanted (llama.cpp's n_outputs)
};

// A slice of a batch that goes through the model in one forward pass (llama.cpp's ubatch):
// tokens [begin, begin + nTokens) of `batch`.
struct UBatch {
    const LlamaBatch* batch = nullptr;
    int begin = 0;
    int nTokens = 0;

    int32_t token(int i) const { return batch->token[size_t(begin + i)]; }
    int32_t pos(int i) const { return batch->pos[size_t(begin + i)]; }
    const std::vector<int>& seqIds(int i) const { return batch->seqIds[size_t(begin + i)]; }
    bool logits(int i) const { return batch->logits[size_t(begin + i)]; }
    int nSeqs() const;  // distinct sequences among its tokens
};

// Tokens a forward pass takes at most, unless told (llama.cpp's default n_ubatch).
constexpr int kDefaultUbatch = 512;

// llama.cpp's simple split: consecutive slices of at most nUbatch tokens, in batch order.
std::vector<UBatch> splitIntoUBatches(const LlamaBatch& batch, int nUbatch);

}  // namespace llama
