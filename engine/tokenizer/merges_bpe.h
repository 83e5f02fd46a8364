#pragma once
// Byte-pair encoding driven by a merge list, as Hugging Face's tokenizer.json defines it:
// start from symbols (token ids) and repeatedly apply the merge with the best priority
// (earliest in the list; leftmost first on ties) among adjacent pairs, until no adjacent
// pair has a merge. tiktoken instead ranks a pair by the id of the concatenated token; the
// two agree only when the merge list happens to be in that order, so tokenizer.json files
// are encoded with their own merge list (bpe.h is the tiktoken variant).
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace llama {

class MergeTable {
public:
    // Merge number `priority` (0 = first) turns the pair (left, right) into `merged`.
    // A pair listed twice keeps its first priority.
    void add(int32_t left, int32_t right, int32_t merged, int32_t priority);

    // Merges `symbols` in place.
    void apply(std::vector<int32_t>& symbols) const;

private:
    struct Merge {
        int32_t priority;
        int32_t merged;
    };
    static uint64_t key(int32_t left, int32_t right) { return (uint64_t(uint32_t(left)) << 32) | uint32_t(right); }
    const Merge* find(int32_t left, int32_t right) const;

    std::unordered_map<uint64_t, Merge> merges_;
};

}  // namespace llama
