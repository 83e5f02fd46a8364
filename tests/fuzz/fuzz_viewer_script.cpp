// The viewer's script language (--script FILE).
#include <string>

#include "fuzz_input.h"
#include "state/script.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors(
        [&] { llama::viewer::parseScript(std::string(reinterpret_cast<const char*>(data), size), "fuzz.script"); });
}
