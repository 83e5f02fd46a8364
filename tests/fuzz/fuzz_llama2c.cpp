// A llama2.c checkpoint as `--model model.bin` reads it (header of any version, sizes, weights),
// with the fixtures' tokenizer.bin (4096 tokens).
#include "formats/llama2c/llama2c_model.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] {
        llama::loadLlama2cModel(llama::fuzz::asFile(data, size, "model.bin"), LLAMA_SOURCE_DIR "/tests/fixtures/llama2c/tokenizer.bin");
    });
}
