#pragma once
// What the rest of the engine needs from a tokenizer: text -> token ids for the prompt,
// id -> bytes for printing generated tokens, and the ids that start and stop generation.
// Llama 3's tiktoken tokenizer (tiktoken_tokenizer.h), Llama 2's SentencePiece
// (sentencepiece_tokenizer.h), tokenizer.json (hf_tokenizer.h) and GGUF's scores-only
// SentencePiece (spm_scores_tokenizer.h) implement it.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace llama {

class Tokenizer {
public:
    virtual ~Tokenizer() = default;

    // Token ids for `text` (UTF-8; invalid UTF-8 throws std::invalid_argument naming the
    // byte offset). No BOS is added: callers prepend bosId() themselves. With allowSpecial,
    // special-token strings written in the text ("<|eot_id|>") become their ids; without,
    // they are encoded as ordinary text.
    virtual std::vector<int32_t> encode(std::string_view text, bool allowSpecial = true) const = 0;
    // The raw bytes of one token; special tokens give their text. A token can be part of a
    // UTF-8 character, so print generated text through Utf8StreamDecoder (utf8_stream.h).
    virtual std::string decodeToken(int32_t id) const = 0;
    virtual int32_t vocabSize() const = 0;
    virtual bool isSpecial(int32_t id) const = 0;
    virtual std::optional<int32_t> specialId(std::string_view name) const = 0;
    // The id a sequence starts with, and the ids generation stops at (any of them). By default
    // the ones a tokenizer read from its files while being made (bos_, stops_).
    virtual int32_t bosId() const { return bos_; }
    virtual std::vector<int32_t> stopIds() const { return stops_; }

    // A generated token's bytes after `previous`: decodeToken(id), except that llama2.c's
    // tokenizers drop the leading space of the piece after BOS, as run.c's decode() does.
    std::string decodeAfter(int32_t previous, int32_t id) const;
    // All tokens' bytes concatenated (decode(encode(s)) == s for valid UTF-8 s).
    std::string decode(std::span<const int32_t> ids) const;
    // One token made readable for token tables: \n \r \t and other control characters
    // escaped, bytes that are only part of a UTF-8 character shown as <0xE2>.
    std::string pieceForDisplay(int32_t id) const { return bytesForDisplay(decodeToken(id)); }
    // The same for any bytes (a pre-tokenizer piece, a part during BPE).
    static std::string bytesForDisplay(std::string_view bytes);

protected:
    int32_t bos_ = -1;
    std::vector<int32_t> stops_;
    bool dropsSpaceAfterBos_ = false;
};

}  // namespace llama
