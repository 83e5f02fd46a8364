// compare-doc's reader of quoted debug-log lines, on any document.
#include <sstream>
#include <string>

#include "doccheck/debug_log_line.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] {
        std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
        llama::readDebugLines(in);
    });
}
