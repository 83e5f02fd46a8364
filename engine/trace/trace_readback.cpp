#include "trace/trace_readback.h"

#include <fmt/format.h>

#include <stdexcept>

#include "trace/trace_reader.h"
#include "trace/trace_tail.h"

namespace llama {

void requireReadsBack(std::string_view bytes, const std::string& path, const std::function<void(std::string_view, const std::string&)>& read) {
    try {
        read(bytes, path);
    } catch (const TraceError& e) {
        throw std::runtime_error(fmt::format("the trace was not written: its readers would refuse it ({}). This is a bug of the writer; "
                                             "please report it with the command that made it",
                                             e.what()));
    }
}

void requireTraceReadsBack(const std::string& written, const std::string& path) {
    // Read a record at a time, its values checked and dropped: in the browser the module's memory
    // keeps its high-water mark for good (docs/web.md, What fits), and the whole file at once was
    // that mark after a recorded run (74 MB for a TinyLlama-shaped run's trace).
    requireReadsBack({}, path, [&](std::string_view, const std::string&) {
        TraceTail tail(written, TailValues::Drop, path);
        tail.read();
        tail.requireWhole();
    });
}

}  // namespace llama
