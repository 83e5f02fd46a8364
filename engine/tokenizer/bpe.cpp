#include "tokenizer/bpe.h"

#include <cstdint>
#include <stdexcept>

#include "tokenizer/merge_loop.h"

namespace llama {

namespace {

int32_t rankOf(const RankMap& ranks, std::string_view bytes) {
    const auto it = ranks.find(bytes);
    return it == ranks.end() ? kNoMerge : it->second;
}

}  // namespace

void bytePairEncode(std::string_view piece, const RankMap& ranks, std::vector<int32_t>& out) {
    if (piece.empty()) return;
    // Llama 3 (like tiktoken) takes a whole piece that is a token as is.
    if (const int32_t whole = rankOf(ranks, piece); whole != kNoMerge) {
        out.push_back(whole);
        return;
    }
    if (piece.size() > size_t(INT32_MAX) - 1) throw std::length_error("BPE piece longer than 2 GiB");
    // Units are the piece's bytes; a pair (or part) is ranked by its concatenated bytes.
    auto rankOfBytes = [&](int32_t begin, int32_t end) { return rankOf(ranks, piece.substr(begin, end - begin)); };
    mergeAdjacentPairs(
        int32_t(piece.size()), [&](int32_t left, int32_t, int32_t rightEnd) { return rankOfBytes(left, rightEnd); },
        [](int32_t, int32_t) {},
        [&](int32_t begin, int32_t end) {
            const int32_t rank = rankOfBytes(begin, end);
            if (rank == kNoMerge) throw std::logic_error("BPE part has no rank (missing single-byte token?)");
            out.push_back(rank);
        });
}

}  // namespace llama
