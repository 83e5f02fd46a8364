// Llama 3's tokenizer.model (base64 token, rank per line), then a tokenizer built on it.
#include "fuzz_input.h"
#include "tokenizer/tiktoken_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] {
        llama::TiktokenTokenizer tokenizer(llama::fuzz::asFile(data, size, "tokenizer.model"));
        tokenizer.encode("Hello, world! 123", true);
    });
}
