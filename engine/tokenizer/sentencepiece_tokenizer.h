#pragma once
// Llama 2's tokenizer: tokenizer.model is a SentencePiece model (a binary protobuf), and
// SentencePiece itself (libsentencepiece) encodes, so ids are exactly what Meta's reference
// gets: "▁" for spaces, a dummy "▁" before the text, <0xNN> byte fallback. BOS is <s>, EOS </s>.
// With allowSpecial, "<s>" and "</s>" written in the text become their ids (as in Hugging
// Face's Llama 2 tokenizer); SentencePiece alone would spell them out as text.
#include <memory>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace llama {

// Tells Llama 2's SentencePiece tokenizer.model from Llama 3's tiktoken one: tiktoken files
// are text lines "<base64> <rank>", a SentencePiece model is a protobuf (binary).
bool isSentencePieceModel(const std::string& path);

class SentencePieceTokenizer final : public Tokenizer {
public:
    // Throws std::runtime_error naming the file if SentencePiece cannot load it.
    explicit SentencePieceTokenizer(const std::string& path);
    ~SentencePieceTokenizer() override;

    std::vector<int32_t> encode(std::string_view text, bool allowSpecial = true) const override;
    // The piece with "▁" as a space; byte pieces <0xNN> as their byte; control tokens as their text.
    std::string decodeToken(int32_t id) const override;
    int32_t vocabSize() const override;
    bool isSpecial(int32_t id) const override;
    std::optional<int32_t> specialId(std::string_view name) const override;
    // The model as a tokenizer.model file holds it (a serialized ModelProto), for writing it out.
    std::string serializedModel() const;

private:
    void encodeOrdinary(std::string_view text, std::vector<int32_t>& out) const;

    std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
    std::vector<std::string> bytes_;  // decodeToken's answer for every id
};

}  // namespace llama
