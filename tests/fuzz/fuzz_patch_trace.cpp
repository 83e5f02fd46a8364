// A patch trace (`patch --trace`: the PTCH grid, then the clean and corrupted runs) as the viewer
// and export-html read it.
#include "fuzz_input.h"
#include "trace/patch_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] {
        const std::string path = llama::fuzz::asFile(data, size, "run.ptrace");
        if (llama::isPatchTrace(path)) llama::readPatchTrace(path);
    });
}
