// Llama 2's tokenizer.model, loaded as SentencePiece does.
#include "fuzz_input.h"
#include "tokenizer/sentencepiece_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] {
        llama::SentencePieceTokenizer tokenizer(llama::fuzz::asFile(data, size, "tokenizer.model"));
        tokenizer.encode("Hello, world! 123", true);
    });
}
