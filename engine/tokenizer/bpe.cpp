#include "tokenizer/bpe.h"

#include <cstdint>
#include <map>
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

BpeTrace traceBytePairEncode(std::string_view piece, const RankMap& ranks) {
    BpeTrace trace;
    for (char c : piece) trace.start.emplace_back(1, c);
    bytePairEncode(piece, ranks, trace.ids);
    if (piece.empty()) return trace;
    trace.wholePiece = rankOf(ranks, piece) != kNoMerge;
    if (trace.wholePiece) return trace;
    // The parts as they stand: first unit -> end unit.
    std::map<int32_t, int32_t> parts;
    for (int32_t i = 0; i < int32_t(piece.size()); ++i) parts[i] = i + 1;
    auto bytes = [&](int32_t begin, int32_t end) { return std::string(piece.substr(begin, end - begin)); };
    mergeAdjacentPairs(
        int32_t(piece.size()), [&](int32_t left, int32_t, int32_t rightEnd) { return rankOf(ranks, piece.substr(left, rightEnd - left)); },
        [&](int32_t left, int32_t right) {
            BpeMergeStep step{bytes(left, right), bytes(right, parts[right]), 0, {}};
            parts[left] = parts[right];
            parts.erase(right);
            step.rank = rankOf(ranks, piece.substr(left, parts[left] - left));
            if (trace.steps.size() < BpeMergeStep::kPartsShown)
                for (const auto& [begin, end] : parts) step.parts.push_back(bytes(begin, end));
            trace.steps.push_back(std::move(step));
        },
        [](int32_t, int32_t) {});
    if (!trace.steps.empty() && trace.steps.back().parts.empty())
        for (const auto& [begin, end] : parts) trace.steps.back().parts.push_back(bytes(begin, end));
    return trace;
}

}  // namespace llama
