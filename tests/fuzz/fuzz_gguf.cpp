// A GGUF file as `--model x.gguf` reads it: header, metadata, tensor infos, the model's args,
// its tokenizer and its tensors.
#include "formats/gguf/gguf_model.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] { llama::loadGgufModel(llama::fuzz::asFile(data, size, "model.gguf")); });
}
