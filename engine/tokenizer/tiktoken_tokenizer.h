#pragma once
// Llama 3's tokenizer: tiktoken-style byte-level BPE. tokenizer.model lists N ranked
// tokens (N = 128,000 for Llama 3); 256 special tokens follow them as ids N..N+255.
// Encoding: cut the text at special-token strings, cut the rest with the pre-tokenizer
// regex, byte-pair-encode each piece (bpe.h).
#include <bitset>
#include <string>
#include <vector>

#include "tokenizer/bpe.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/tokenizer.h"

namespace llama {

class TiktokenTokenizer final : public Tokenizer {
public:
    // Loads a tiktoken file (tiktoken_file.h lists the checks; errors name file and line).
    // The special tokens get ids N, N+1, ... in the order given.
    explicit TiktokenTokenizer(const std::string& path,
                               std::vector<std::string> specialTokens = llama3SpecialTokens(),
                               std::string_view splitPattern = kLlama3SplitPattern);

    // Llama 3.1's 256 special tokens, as in Hugging Face's Llama 3.1 tokenizer.json:
    // 128000 <|begin_of_text|>, 128001 <|end_of_text|>, 128002-3 <|reserved_special_token_0/1|>,
    // 128004 <|finetune_right_pad_id|>, 128005 <|reserved_special_token_2|>,
    // 128006 <|start_header_id|>, 128007 <|end_header_id|>, 128008 <|eom_id|>, 128009 <|eot_id|>,
    // 128010 <|python_tag|>, 128011..128255 <|reserved_special_token_3|>..<|reserved_special_token_247|>.
    // Llama 3.0 had reserved names at 128004/5/8/10 (reserved_2, _3, _4, _5, then _6.._250), and
    // Meta's llama-models code calls 128005 <|step_id|> (reserved numbering from 2); the ids of
    // everything a runtime uses (BOS, EOS, headers, eot) are the same in all of them.
    static std::vector<std::string> llama3SpecialTokens();

    // From token bytes already in rank order (e.g. a synthetic model's vocabulary).
    explicit TiktokenTokenizer(std::vector<std::string> rankedTokens,
                               std::vector<std::string> specialTokens = llama3SpecialTokens(),
                               std::string_view splitPattern = kLlama3SplitPattern);

    std::vector<int32_t> encode(std::string_view text, bool allowSpecial = true) const override;
    std::string decodeToken(int32_t id) const override;
    int32_t vocabSize() const override { return int32_t(tokens_.size()); }
    bool isSpecial(int32_t id) const override { return id >= numBaseTokens_ && id < vocabSize(); }
    std::optional<int32_t> specialId(std::string_view name) const override;
    // Looked up by name among the special tokens this tokenizer was given (std::logic_error,
    // when asked, if one is missing): <|begin_of_text|>, and <|eot_id|> (end of a chat turn)
    // and <|end_of_text|>.
    int32_t bosId() const override;
    std::vector<int32_t> stopIds() const override;

    // The two passes of encoding ordinary text, one at a time, for teaching: the pre-tokenizer's
    // pieces (views into `text`, which must be valid UTF-8), and one piece's BPE merges.
    std::vector<std::string_view> pretokenize(std::string_view text) const { return splitter_.split(text); }
    BpeTrace traceMerges(std::string_view piece) const { return traceBytePairEncode(piece, ranks_); }

    // N: ids below it are BPE tokens, ids from it on are special.
    int32_t numBaseTokens() const { return numBaseTokens_; }

private:
    // Text with no special tokens in it: pre-tokenize, then BPE each piece.
    void encodeOrdinary(std::string_view text, std::vector<int32_t>& out) const;
    int32_t requireSpecial(std::string_view name) const;

    std::vector<std::string> tokens_;  // bytes of every id; special ids hold their text
    int32_t numBaseTokens_ = 0;
    RankMap ranks_;                    // BPE token bytes -> rank (= id)
    RankMap specials_;                 // special token text -> id
    // To find special tokens quickly: which bytes can start one, and their lengths (longest first).
    std::bitset<256> specialFirstBytes_;
    std::vector<size_t> specialLengths_;
    RegexSplitter splitter_;
};

}  // namespace llama
