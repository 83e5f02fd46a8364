#pragma once
// Learning a byte-level BPE vocabulary (Llama 3's kind) from text, as assets/train_tokenizer.py
// does, so that the same text gives the same tokenizer.model byte for byte: the text is cut by the
// pre-tokenizer, the distinct pieces are counted, and merges are learned on those counts (word-count
// BPE). Each merge joins the adjacent pair that occurs most often, ties to the smallest (left,
// right) ids, and its token gets the next rank; ranks 0..255 are the single bytes.
// train_tokenizer.py would reuse the id of merged bytes that already are a token; that never
// happens here: a span of a piece that starts and ends between tokens is split exactly as the
// span alone would be (merges inside it never depend on what is outside, or it would not still
// start and end between tokens), and once a token's bytes have been merged alone they stay one
// token, so no two adjacent tokens ever spell an existing one. The trainer checks it.
// Hand-written: Debian packages no BPE trainer for C++ (SentencePiece's trains another algorithm
// with other tie-breaks, Hugging Face's tokenizers is Rust).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace llama {

struct CountedPiece {
    std::string bytes;
    int64_t count = 0;
};

// The distinct pieces of `text` (valid UTF-8) under Llama 3's pre-tokenizer, with how often each
// occurs, in order of first occurrence.
std::vector<CountedPiece> countPieces(std::string_view text);

struct BpeMerge {
    size_t index = 0;          // 0 for the first merge
    int32_t left = 0, right = 0;
    int32_t id = 0;            // the merged token's rank: 256 + index
    int64_t count = 0;         // occurrences of the pair in the counted pieces
};

// What the caller sees after each merge (`tokens`: every token so far, indexed by rank, the merged
// one included).
using BpeMergeObserver = std::function<void(const BpeMerge& merge, const std::vector<std::string>& tokens)>;

// Token bytes indexed by rank: the 256 bytes, then one token per merge, until there are `vocabSize`
// (>= 256) or no piece has two tokens left (then fewer).
std::vector<std::string> trainBpe(const std::vector<CountedPiece>& pieces, size_t vocabSize,
                                  const BpeMergeObserver& onMerge = {});

}  // namespace llama
