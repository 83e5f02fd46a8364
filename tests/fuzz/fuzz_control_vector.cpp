// llama.cpp's control-vector files (--control-vector): the GGUF reader and the direction checks.
#include "formats/gguf/gguf_control_vector.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] { llama::readControlVectorFile(llama::fuzz::asFile(data, size, "vector.gguf")); });
}
