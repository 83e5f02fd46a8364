#pragma once
// tiktoken's byte-pair encoding of one pre-tokenized piece: start from single bytes and
// repeatedly merge the adjacent pair whose concatenated bytes have the lowest rank
// (leftmost first on ties) until no adjacent concatenation is a token.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace llama {

// Hash that lets the map be searched with a string_view (no temporary std::string).
struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using RankMap = std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>>;

// Appends the ranks (= token ids) of `piece` to `out`. Every single byte must have a rank.
// O(n log n) in the piece length: a heap of candidate merges, a linked list of parts.
void bytePairEncode(std::string_view piece, const RankMap& ranks, std::vector<int32_t>& out);

// bytePairEncode step by step, for teaching (`llama-walkthrough tokenize`): the same merges in
// the same order, each with the parts it leaves.
struct BpeMergeStep {
    std::string left, right;  // the adjacent pair merged
    int32_t rank = 0;         // of left + right: the lowest among the adjacent pairs
    std::vector<std::string> parts;  // the piece's parts after this merge: only in the first kPartsShown steps and the last
    // A long piece has as many steps as bytes, and n steps' parts would be n² strings.
    static constexpr size_t kPartsShown = 40;
};
struct BpeTrace {
    std::vector<std::string> start;  // the single bytes
    bool wholePiece = false;         // the piece is a token itself: taken as is, no merges
    std::vector<BpeMergeStep> steps;
    std::vector<int32_t> ids;        // what bytePairEncode appends
};
BpeTrace traceBytePairEncode(std::string_view piece, const RankMap& ranks);

}  // namespace llama
