// The restricted unpickler on arbitrary bytes (a checkpoint's data.pkl).
#include <span>

#include "formats/meta/pickle.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] { llama::pickle::unpickle(std::as_bytes(std::span(data, size)), "fuzz.pkl"); });
}
