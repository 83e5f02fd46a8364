#include "tokenizer/bpe_trainer.h"

#include <algorithm>
#include <optional>
#include <queue>
#include <tuple>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "tokenizer/pretokenizer.h"
#include "tokenizer/tokenizer.h"

namespace llama {

namespace {

using PairKey = uint64_t;
PairKey pairKey(int32_t left, int32_t right) { return uint64_t(uint32_t(left)) << 32 | uint32_t(right); }

// A pair's count when it was pushed. The heap is never searched or updated in place: a pair whose
// count changes is pushed again, and an entry that no longer matches its pair's count is dropped
// when it comes to the top (lazy invalidation).
struct HeapEntry {
    int64_t count;
    int32_t left, right;
    // The top is the highest count, then the smallest (left, right): train_tokenizer.py's max with
    // key (count, -left, -right).
    bool operator<(const HeapEntry& other) const {
        if (count != other.count) return count < other.count;
        return std::tie(left, right) > std::tie(other.left, other.right);
    }
};

struct Word {
    std::vector<int32_t> ids;
    int64_t count;
};

bool holdsPair(const std::vector<int32_t>& ids, int32_t left, int32_t right) {
    for (size_t i = 0; i + 1 < ids.size(); ++i)
        if (ids[i] == left && ids[i + 1] == right) return true;
    return false;
}

// Left to right, each occurrence of (left, right) becomes `merged` (in "aaa", (a, a) merges once).
std::vector<int32_t> mergePair(const std::vector<int32_t>& ids, int32_t left, int32_t right, int32_t merged) {
    std::vector<int32_t> out;
    out.reserve(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
        if (i + 1 < ids.size() && ids[i] == left && ids[i + 1] == right) {
            out.push_back(merged);
            ++i;
        } else {
            out.push_back(ids[i]);
        }
    }
    return out;
}

class MergeLearner {
public:
    explicit MergeLearner(const std::vector<CountedPiece>& pieces) {
        for (int b = 0; b < 256; ++b) addToken(std::string(1, char(b)));
        words_.reserve(pieces.size());
        for (const CountedPiece& p : pieces) {
            Word w{{}, p.count};
            for (unsigned char byte : p.bytes) w.ids.push_back(byte);
            const auto index = uint32_t(words_.size());
            for (size_t i = 0; i + 1 < w.ids.size(); ++i) {
                pairCounts_[pairKey(w.ids[i], w.ids[i + 1])] += w.count;
                wordsWith_[pairKey(w.ids[i], w.ids[i + 1])].push_back(index);
            }
            words_.push_back(std::move(w));
        }
        for (const auto& [key, count] : pairCounts_) heap_.push({count, int32_t(key >> 32), int32_t(key & 0xFFFFFFFF)});
    }

    std::vector<std::string> learn(size_t vocabSize, const BpeMergeObserver& onMerge) {
        for (size_t index = 0; tokens_.size() < vocabSize; ++index) {
            const auto best = nextPair();
            if (!best) break;
            const int32_t merged = addToken(tokens_[size_t(best->left)] + tokens_[size_t(best->right)]);
            apply(best->left, best->right, merged);
            if (onMerge) onMerge({index, best->left, best->right, merged, best->count}, tokens_);
        }
        return tokens_;
    }

private:
    int32_t addToken(std::string bytes) {
        // The header says why merged bytes are always new; a tiktoken file cannot hold them twice.
        if (!known_.insert(bytes).second)
            throw std::logic_error("BPE training merged '" + Tokenizer::bytesForDisplay(bytes) + "', already a token");
        tokens_.push_back(std::move(bytes));
        return int32_t(tokens_.size() - 1);
    }

    // The most frequent pair, or nothing when no piece has two tokens left.
    std::optional<HeapEntry> nextPair() {
        while (!heap_.empty()) {
            const HeapEntry top = heap_.top();
            heap_.pop();
            const auto it = pairCounts_.find(pairKey(top.left, top.right));
            if (it != pairCounts_.end() && it->second == top.count) return top;
        }
        return std::nullopt;
    }

    // Every word holding (left, right) gets it merged; the pairs it loses and gains change their
    // counts, and the pairs with `merged` learn which words hold them.
    void apply(int32_t left, int32_t right, int32_t merged) {
        const PairKey key = pairKey(left, right);
        const std::vector<uint32_t> holders = std::move(wordsWith_[key]);
        wordsWith_.erase(key);
        std::vector<std::pair<PairKey, int64_t>> delta;
        std::vector<PairKey> changed;
        for (uint32_t index : holders) {
            Word& w = words_[index];
            // A word listed twice, or no longer holding the pair (an earlier merge took it), is
            // done: the list is only ever appended to.
            if (!holdsPair(w.ids, left, right)) continue;
            std::vector<int32_t> ids = mergePair(w.ids, left, right, merged);
            delta.clear();
            for (size_t i = 0; i + 1 < w.ids.size(); ++i) delta.emplace_back(pairKey(w.ids[i], w.ids[i + 1]), -w.count);
            for (size_t i = 0; i + 1 < ids.size(); ++i) {
                delta.emplace_back(pairKey(ids[i], ids[i + 1]), w.count);
                if (ids[i] == merged || ids[i + 1] == merged) wordsWith_[pairKey(ids[i], ids[i + 1])].push_back(index);
            }
            std::sort(delta.begin(), delta.end());
            for (size_t i = 0; i < delta.size();) {
                int64_t sum = 0;
                size_t j = i;
                for (; j < delta.size() && delta[j].first == delta[i].first; ++j) sum += delta[j].second;
                if (sum != 0) {
                    pairCounts_[delta[i].first] += sum;
                    changed.push_back(delta[i].first);
                }
                i = j;
            }
            w.ids = std::move(ids);
        }
        std::sort(changed.begin(), changed.end());
        changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
        for (PairKey k : changed) {
            const auto it = pairCounts_.find(k);
            if (it->second <= 0)
                pairCounts_.erase(it);
            else
                heap_.push({it->second, int32_t(k >> 32), int32_t(k & 0xFFFFFFFF)});
        }
    }

    std::vector<std::string> tokens_;
    std::unordered_set<std::string> known_;
    std::vector<Word> words_;
    std::unordered_map<PairKey, int64_t> pairCounts_;
    std::unordered_map<PairKey, std::vector<uint32_t>> wordsWith_;  // may list a word twice, or one that lost the pair
    std::priority_queue<HeapEntry> heap_;
};

}  // namespace

std::vector<CountedPiece> countPieces(std::string_view text) {
    const RegexSplitter splitter(kLlama3SplitPattern);
    std::unordered_map<std::string_view, size_t> indexOf;
    std::vector<CountedPiece> pieces;
    for (std::string_view piece : splitter.split(text)) {
        const auto [it, inserted] = indexOf.emplace(piece, pieces.size());
        if (inserted) pieces.push_back({std::string(piece), 0});
        ++pieces[it->second].count;
    }
    return pieces;
}

std::vector<std::string> trainBpe(const std::vector<CountedPiece>& pieces, size_t vocabSize, const BpeMergeObserver& onMerge) {
    return MergeLearner(pieces).learn(vocabSize, onMerge);
}

}  // namespace llama
