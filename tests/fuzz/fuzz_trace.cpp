// A trace file as the viewer and replay read it.
#include "fuzz_input.h"
#include "trace/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] { llama::readTrace(llama::fuzz::asFile(data, size, "run.trace")); });
}
