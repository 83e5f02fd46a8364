// llama2.c's tokenizer.bin, read for a vocabulary of 4096 tokens (the fixtures').
#include "formats/llama2c/llama2c_tokenizer.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] { llama::loadLlama2cTokenizer(llama::fuzz::asFile(data, size, "tokenizer.bin"), 4096); });
}
