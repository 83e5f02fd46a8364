// The browser build's SentencePieceTokenizer: libsentencepiece is not compiled for WebAssembly
// (it would be the largest library in the module, for Llama 2 models only), so such a
// tokenizer.model is refused by name. GGUF files carry their vocabulary and are read without it.
#include <stdexcept>

#include "tokenizer/sentencepiece_tokenizer.h"

namespace sentencepiece {
class SentencePieceProcessor {};
}  // namespace sentencepiece

namespace llama {

namespace {
[[noreturn]] void unavailable() { throw std::logic_error("SentencePiece is not part of the browser build"); }
}  // namespace

SentencePieceTokenizer::SentencePieceTokenizer(const std::string& path) {
    throw std::runtime_error(path + ": a SentencePiece tokenizer.model (Llama 2's) cannot be read in the browser build; "
                             "the model's GGUF file carries its vocabulary and runs here, or run it with the native llama-walkthrough");
}
SentencePieceTokenizer::~SentencePieceTokenizer() = default;
std::vector<int32_t> SentencePieceTokenizer::encode(std::string_view, bool) const { unavailable(); }
void SentencePieceTokenizer::encodeOrdinary(std::string_view, std::vector<int32_t>&) const { unavailable(); }
std::string SentencePieceTokenizer::decodeToken(int32_t) const { unavailable(); }
int32_t SentencePieceTokenizer::vocabSize() const { unavailable(); }
bool SentencePieceTokenizer::isSpecial(int32_t) const { unavailable(); }
std::optional<int32_t> SentencePieceTokenizer::specialId(std::string_view) const { unavailable(); }
std::string SentencePieceTokenizer::serializedModel() const { unavailable(); }

}  // namespace llama
