// The tokenizers' encode on arbitrary bytes: the bundled Llama 3 tokenizer (tiktoken) and a
// Llama 2 SentencePiece model. Invalid UTF-8 must be refused with a message; valid text must
// decode back to itself.
#include <memory>
#include <string_view>

#include "fuzz_input.h"
#include "tokenizer/sentencepiece_tokenizer.h"
#include "tokenizer/tiktoken_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const llama::TiktokenTokenizer llama3(LLAMA_SOURCE_DIR "/assets/model/tokenizer.model");
    static const llama::SentencePieceTokenizer llama2(LLAMA_SOURCE_DIR "/tests/fixtures/sentencepiece/llama2_style.model");
    if (size == 0) return 0;
    // The first byte picks the tokenizer and whether special tokens are recognised.
    const llama::Tokenizer& tokenizer = data[0] & 1 ? static_cast<const llama::Tokenizer&>(llama2) : llama3;
    const bool allowSpecial = data[0] & 2;
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    return llama::fuzz::expectCleanErrors([&] {
        const auto ids = tokenizer.encode(text, allowSpecial);
        if (&tokenizer == &llama3 && !allowSpecial && tokenizer.decode(ids) != text) {
            std::fprintf(stderr, "decode(encode(text)) differs from the text\n");
            std::abort();
        }
    });
}
