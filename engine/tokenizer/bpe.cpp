#include "tokenizer/bpe.h"

#include <cstdint>
#include <queue>
#include <stdexcept>
#include <tuple>

namespace llama {

namespace {

constexpr int32_t kNone = -1;

int32_t rankOf(const RankMap& ranks, std::string_view bytes) {
    const auto it = ranks.find(bytes);
    return it == ranks.end() ? kNone : it->second;
}

}  // namespace

void bytePairEncode(std::string_view piece, const RankMap& ranks, std::vector<int32_t>& out) {
    if (piece.empty()) return;
    // Llama 3 (like tiktoken) takes a whole piece that is a token as is.
    if (const int32_t whole = rankOf(ranks, piece); whole != kNone) {
        out.push_back(whole);
        return;
    }
    if (piece.size() > size_t(INT32_MAX) - 1) throw std::length_error("BPE piece longer than 2 GiB");
    // Part i covers piece[start[i], start[next[i]]); merged-away parts are marked dead.
    const int32_t n = int32_t(piece.size());
    std::vector<int32_t> start(n + 1), prev(n), next(n), version(n, 0);
    std::vector<bool> alive(n, true);
    for (int32_t i = 0; i < n; ++i) {
        start[i] = i;
        prev[i] = i - 1;
        next[i] = i + 1;  // n = end sentinel
    }
    start[n] = n;
    auto end = [&](int32_t i) { return start[next[i]]; };

    // Candidate merges (rank, left part, versions of both parts); the smallest tuple is the
    // lowest rank and, among equal ranks, the leftmost, because part indices follow positions.
    // Entries go stale when a part changes; the versions detect that when they are popped.
    using Candidate = std::tuple<int32_t, int32_t, int32_t, int32_t>;
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
    auto consider = [&](int32_t left) {
        if (left < 0 || next[left] >= n) return;
        const int32_t right = next[left];
        const int32_t rank = rankOf(ranks, piece.substr(start[left], end(right) - start[left]));
        if (rank != kNone) heap.emplace(rank, left, version[left], version[right]);
    };
    for (int32_t i = 0; i + 1 < n; ++i) consider(i);

    while (!heap.empty()) {
        const auto [rank, left, leftVersion, rightVersion] = heap.top();
        heap.pop();
        if (!alive[left] || version[left] != leftVersion || next[left] >= n) continue;
        const int32_t right = next[left];
        if (version[right] != rightVersion) continue;
        // Merge right into left.
        alive[right] = false;
        next[left] = next[right];
        if (next[left] < n) prev[next[left]] = left;
        ++version[left];
        consider(prev[left]);
        consider(left);
    }
    for (int32_t i = 0; i < n; i = next[i]) {
        const int32_t rank = rankOf(ranks, piece.substr(start[i], end(i) - start[i]));
        if (rank == kNone) throw std::logic_error("BPE part has no rank (missing single-byte token?)");
        out.push_back(rank);
    }
}

}  // namespace llama
