#include "tokenizer/merges_bpe.h"

#include <queue>
#include <tuple>

namespace llama {

void MergeTable::add(int32_t left, int32_t right, int32_t merged, int32_t priority) {
    merges_.emplace(key(left, right), Merge{priority, merged});
}

const MergeTable::Merge* MergeTable::find(int32_t left, int32_t right) const {
    const auto it = merges_.find(key(left, right));
    return it == merges_.end() ? nullptr : &it->second;
}

void MergeTable::apply(std::vector<int32_t>& symbols) const {
    const int32_t n = int32_t(symbols.size());
    if (n < 2) return;
    // A linked list of symbols; merged-away ones are dead. Heap entries carry both symbols'
    // versions so that entries made stale by an earlier merge are skipped when popped.
    std::vector<int32_t> prev(n), next(n), version(n, 0);
    std::vector<bool> alive(n, true);
    for (int32_t i = 0; i < n; ++i) {
        prev[i] = i - 1;
        next[i] = i + 1;
    }
    using Candidate = std::tuple<int32_t, int32_t, int32_t, int32_t>;  // priority, left, versions
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
    auto consider = [&](int32_t left) {
        if (left < 0 || next[left] >= n) return;
        const int32_t right = next[left];
        if (const Merge* m = find(symbols[left], symbols[right])) heap.emplace(m->priority, left, version[left], version[right]);
    };
    for (int32_t i = 0; i + 1 < n; ++i) consider(i);
    while (!heap.empty()) {
        const auto [priority, left, leftVersion, rightVersion] = heap.top();
        heap.pop();
        if (!alive[left] || version[left] != leftVersion || next[left] >= n) continue;
        const int32_t right = next[left];
        if (version[right] != rightVersion) continue;
        symbols[left] = find(symbols[left], symbols[right])->merged;
        alive[right] = false;
        next[left] = next[right];
        if (next[left] < n) prev[next[left]] = left;
        ++version[left];
        consider(prev[left]);
        consider(left);
    }
    std::vector<int32_t> out;
    for (int32_t i = 0; i < n; i = next[i]) out.push_back(symbols[i]);
    symbols = std::move(out);
}

}  // namespace llama
