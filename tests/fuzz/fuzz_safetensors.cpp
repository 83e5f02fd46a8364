// A safetensors file: the JSON header and the tensor views it describes.
#include "formats/hf/safetensors.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] { llama::SafetensorsFile::load(llama::fuzz::asFile(data, size, "model.safetensors")); });
}
