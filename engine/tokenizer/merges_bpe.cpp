#include "tokenizer/merges_bpe.h"

#include "tokenizer/merge_loop.h"

namespace llama {

void MergeTable::add(int32_t left, int32_t right, int32_t merged, int32_t priority) {
    merges_.emplace(key(left, right), Merge{priority, merged});
}

const MergeTable::Merge* MergeTable::find(int32_t left, int32_t right) const {
    const auto it = merges_.find(key(left, right));
    return it == merges_.end() ? nullptr : &it->second;
}

void MergeTable::apply(std::vector<int32_t>& symbols) const {
    // Units are the symbols; a pair is ranked by its merge's priority.
    std::vector<int32_t> out;
    mergeAdjacentPairs(
        int32_t(symbols.size()),
        [&](int32_t left, int32_t right, int32_t) {
            const Merge* m = find(symbols[left], symbols[right]);
            return m ? m->priority : kNoMerge;
        },
        [&](int32_t left, int32_t right) { symbols[left] = find(symbols[left], symbols[right])->merged; },
        [&](int32_t begin, int32_t) { out.push_back(symbols[begin]); });
    symbols = std::move(out);
}

}  // namespace llama
