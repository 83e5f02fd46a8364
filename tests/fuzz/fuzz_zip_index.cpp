// The zip index of consolidated.00.pth on arbitrary bytes, then every entry's data.
#include <span>

#include "formats/meta/zip_index.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] {
        llama::ZipIndex index(std::as_bytes(std::span(data, size)), "fuzz.zip");
        for (const auto& entry : index.entries()) index.data(entry);
    });
}
