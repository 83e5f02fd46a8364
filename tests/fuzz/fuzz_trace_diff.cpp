// `diff A.trace B.trace` on two mutated traces: the input is both files, split at the first
// "\n--8<--\n". Whatever the two hold, diff ends in a report or a message, never a crash.
#include <string>
#include <string_view>

#include "fuzz_input.h"
#include "trace/trace_diff.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view all(reinterpret_cast<const char*>(data), size);
    constexpr std::string_view kCut = "\n--8<--\n";
    const size_t cut = all.find(kCut);
    if (cut == std::string_view::npos) return 0;
    const std::string_view a = all.substr(0, cut), b = all.substr(cut + kCut.size());
    return llama::fuzz::expectCleanErrors([&] {
        const llama::TraceRun runA = llama::readTrace(llama::fuzz::asFile(reinterpret_cast<const uint8_t*>(a.data()), a.size(), "a.trace"));
        const llama::TraceRun runB = llama::readTrace(llama::fuzz::asFile(reinterpret_cast<const uint8_t*>(b.data()), b.size(), "b.trace"));
        const llama::TraceDiff diff = llama::diffTraces(runA, runB);
        llama::formatTraceDiff(diff, runA, runB, "a.trace", "b.trace");
    });
}
