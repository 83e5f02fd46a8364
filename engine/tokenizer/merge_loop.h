#pragma once
// The byte-pair merge loop shared by tiktoken's ranks (bpe.cpp), tokenizer.json's merge
// lists (merges_bpe.cpp) and the piece scores of GGUF's SentencePiece vocabulary
// (spm_scores_tokenizer.cpp): they differ only in how an adjacent pair is ranked.
#include <cstdint>
#include <functional>
#include <queue>
#include <tuple>
#include <vector>

namespace llama {

constexpr int32_t kNoMerge = -1;

// Parts 0..n-1 start as a row of single units. Repeatedly merges the adjacent pair with the
// lowest rank (leftmost first on ties) until no adjacent pair has a rank.
//   rankOf(left, right, rightEnd) -> rank or kNoMerge; the pair covers units [left, rightEnd).
//   onMerge(left, right): called just before `right` is merged into `left`.
//   onPart(begin, end): called for each final part, in order; it covers units [begin, end).
// O(n log n): a heap of candidate merges, a linked list of parts.
template <class RankOf, class OnMerge, class OnPart>
void mergeAdjacentPairs(int32_t n, RankOf&& rankOf, OnMerge&& onMerge, OnPart&& onPart) {
    if (n <= 0) return;
    // A part keeps the index of its first unit; merged-away parts are marked dead.
    std::vector<int32_t> prev(n), next(n), version(n, 0);
    std::vector<bool> alive(n, true);
    for (int32_t i = 0; i < n; ++i) {
        prev[i] = i - 1;
        next[i] = i + 1;  // n = end sentinel
    }

    // Candidate merges (rank, left part, versions of both parts); the smallest tuple is the
    // lowest rank and, among equal ranks, the leftmost, because part indices follow positions.
    // Entries go stale when a part changes; the versions detect that when they are popped.
    using Candidate = std::tuple<int32_t, int32_t, int32_t, int32_t>;
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
    auto consider = [&](int32_t left) {
        if (left < 0 || next[left] >= n) return;
        const int32_t right = next[left];
        const int32_t rank = rankOf(left, right, next[right]);
        if (rank != kNoMerge) heap.emplace(rank, left, version[left], version[right]);
    };
    for (int32_t i = 0; i + 1 < n; ++i) consider(i);

    while (!heap.empty()) {
        const auto [rank, left, leftVersion, rightVersion] = heap.top();
        heap.pop();
        if (!alive[left] || version[left] != leftVersion || next[left] >= n) continue;
        const int32_t right = next[left];
        if (version[right] != rightVersion) continue;
        onMerge(left, right);
        alive[right] = false;
        next[left] = next[right];
        if (next[left] < n) prev[next[left]] = left;
        ++version[left];
        consider(prev[left]);
        consider(left);
    }
    for (int32_t i = 0; i < n; i = next[i]) onPart(i, next[i]);
}

}  // namespace llama
