// Hugging Face's tokenizer.json, then an encode with it.
#include "fuzz_input.h"
#include "tokenizer/hf_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] {
        llama::HfTokenizer tokenizer(llama::fuzz::asFile(data, size, "tokenizer.json"), "");
        tokenizer.encode("Hello, world! 123 <|begin_of_text|>", true);
    });
}
