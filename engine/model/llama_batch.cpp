#include "model/llama_batch.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace llama {

int LlamaBatch::nOutputs() const { return int(std::count(logits.begin(), logits.end(), true)); }

int UBatch::nSeqs() const {
    std::set<int> seqs;
    for (int i = 0; i < nTokens; ++i) seqs.insert(seqIds(i).begin(), seqIds(i).end());
    return int(seqs.size());
}

std::vector<UBatch> splitIntoUBatches(const LlamaBatch& batch, int nUbatch) {
    if (nUbatch < 1) throw std::invalid_argument("n_ubatch must be at least 1");
    std::vector<UBatch> ubatches;
    for (int begin = 0; begin < batch.size(); begin += nUbatch)
        ubatches.push_back({&batch, begin, std::min(nUbatch, batch.size() - begin)});
    return ubatches;
}

}  // namespace llama
