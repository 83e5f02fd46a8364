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

}  // namespace llama
