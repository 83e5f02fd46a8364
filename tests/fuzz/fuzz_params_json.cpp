// Meta's params.json.
#include "formats/meta/params_json.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] { llama::loadParamsJson(llama::fuzz::asFile(data, size, "params.json")); });
}
