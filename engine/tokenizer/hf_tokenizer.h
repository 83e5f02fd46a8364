#pragma once
// Hugging Face's tokenizer.json (a BPE model with its merge list) plus tokenizer_config.json
// (which tokens are BOS/EOS, the chat template). Two flavours of Llama tokenizer are read:
//  - byte-level (Llama 3): a Split pre-tokenizer regex cuts the text, each piece's bytes are
//    spelled in GPT-2's byte alphabet (byte_level.h) and merged;
//  - SentencePiece-derived (Llama 2): the normalizer prepends "▁" and turns spaces into "▁",
//    the text's characters are merged, characters missing from the vocabulary fall back to
//    their bytes' <0xNN> tokens (byte_fallback).
// Added tokens (added_tokens, e.g. <|eot_id|>, <s>) are cut out of the text first, longest
// match at the leftmost position, when allowSpecial is set.
#include <bitset>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tokenizer/bpe.h"
#include "tokenizer/merges_bpe.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/tokenizer.h"

namespace llama {

class HfTokenizer final : public Tokenizer {
public:
    enum class Flavour { ByteLevel, SentencePiece };

    // configPath may be empty (no tokenizer_config.json): then BOS/EOS are guessed from the
    // usual names (<|begin_of_text|>/<|end_of_text|>, <s>/</s>). Errors name the file and the field.
    HfTokenizer(const std::string& tokenizerJsonPath, const std::string& configPath);
    ~HfTokenizer() override;

    std::vector<int32_t> encode(std::string_view text, bool allowSpecial = true) const override;
    std::string decodeToken(int32_t id) const override;
    int32_t vocabSize() const override { return int32_t(bytes_.size()); }
    bool isSpecial(int32_t id) const override;
    std::optional<int32_t> specialId(std::string_view name) const override;
    // Stops: EOS, and <|eot_id|> / <|end_of_text|> when the vocabulary has them (a Llama 3 Instruct
    // model ends its turns with <|eot_id|>; a base model ends text with <|end_of_text|>).

    Flavour flavour() const { return flavour_; }
    // tokenizer_config.json's Jinja chat_template, verbatim ("" if none). Shown, not executed.
    const std::string& chatTemplate() const { return chatTemplate_; }

private:
    void encodeOrdinary(std::string_view text, std::vector<int32_t>& out) const;
    void encodePiece(std::string_view spelled, std::vector<int32_t>& out) const;

    Flavour flavour_ = Flavour::ByteLevel;
    std::vector<std::string> bytes_;   // each id's raw bytes (added tokens: their text)
    RankMap vocab_;                    // the model's spelling of a token -> id
    RankMap added_;                    // added token text -> id
    std::bitset<256> addedFirstBytes_; // bytes that can start an added token (skips most positions)
    std::vector<bool> special_;        // added tokens marked "special"
    MergeTable merges_;
    std::unique_ptr<RegexSplitter> splitter_;  // byte-level: the Split pre-tokenizer
    bool ignoreMerges_ = false;        // a piece that is a whole token is taken as is
    bool byteFallback_ = false;
    std::optional<int32_t> unk_;
    std::string chatTemplate_;
};

}  // namespace llama
