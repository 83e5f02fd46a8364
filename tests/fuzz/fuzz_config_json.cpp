// Hugging Face's config.json.
#include "formats/hf/hf_config.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] { llama::loadHfConfig(llama::fuzz::asFile(data, size, "config.json")); });
}
