#pragma once
// SentencePiece-style BPE driven by piece scores, as GGUF's "llama" vocabulary (Llama 2)
// describes it: tokenizer.ggml.tokens with their scores and token types, no merge list.
// Encoding follows llama.cpp's SPM tokenizer: spaces become "▁" (a "▁" is put in front of the
// text and after every special token when add_space_prefix is set), the text starts as single
// UTF-8 characters, and the adjacent pair whose concatenation is a piece with the highest score
// (leftmost on ties) is merged until none is left. Characters no piece covers fall back to
// their bytes' <0xNN> tokens (or the unknown token).
#include <array>
#include <string>
#include <unordered_map>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace llama {

class SpmScoresTokenizer final : public Tokenizer {
public:
    // llama.cpp's token types.
    enum TokenType : int32_t { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };

    // pieces, scores and types are parallel (one entry per id); throws std::invalid_argument
    // naming the problem if they are not, or if bos/eos are not ids.
    SpmScoresTokenizer(std::vector<std::string> pieces, std::vector<float> scores, std::vector<int32_t> types, int32_t bosId,
                       std::vector<int32_t> stopIds, bool addSpacePrefix);

    std::vector<int32_t> encode(std::string_view text, bool allowSpecial = true) const override;
    // "▁" as a space, <0xNN> byte tokens as their byte, control tokens as their text.
    std::string decodeToken(int32_t id) const override;
    int32_t vocabSize() const override { return int32_t(pieces_.size()); }
    bool isSpecial(int32_t id) const override;
    std::optional<int32_t> specialId(std::string_view name) const override;

    // The vocabulary as given, for writing it out again (formats/gguf/gguf_tokenizer.h).
    const std::vector<std::string>& pieces() const { return pieces_; }
    const std::vector<float>& scores() const { return scores_; }
    const std::vector<int32_t>& types() const { return types_; }
    bool addSpacePrefix() const { return addSpacePrefix_; }
    // llama2.c's decoding: the piece after BOS loses its leading space (run.c's decode()).
    void dropSpaceAfterBos() { dropsSpaceAfterBos_ = true; }

private:
    void encodeOrdinary(std::string text, std::vector<int32_t>& out) const;

    std::vector<std::string> pieces_;
    std::vector<float> scores_;
    std::vector<int32_t> types_;
    std::unordered_map<std::string, int32_t> pieceIds_;    // mergeable pieces (not control, not byte)
    // Per id, a mergeable piece's rank for merge_loop.h (lowest merged first): its place among
    // the distinct scores, highest first, so equal scores tie and the leftmost pair wins.
    std::vector<int32_t> mergeRanks_;
    std::unordered_map<std::string, int32_t> controlIds_;  // control token text -> id
    std::array<int32_t, 256> byteIds_;                     // <0xNN> ids, -1 when absent
    int32_t unk_ = -1;
    bool addSpacePrefix_ = true;
};

}  // namespace llama
