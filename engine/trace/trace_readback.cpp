#include "trace/trace_readback.h"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

#include "trace/trace_reader.h"

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
    // Read as a plain stream, not as an input (readInputFile): a file the process has read may not
    // be written again, and this one is the process's own output.
    // Read at its size, not grown as it comes (a string doubling to 128 MB for a 74 MB trace), and
    // checked without keeping its values: in the browser the module's memory keeps its high-water
    // mark for good (docs/web.md, What fits).
    std::ifstream in(written, std::ios::binary | std::ios::ate);
    std::string bytes;
    if (in) {
        bytes.resize(size_t(in.tellg()));
        in.seekg(0);
        in.read(bytes.data(), std::streamsize(bytes.size()));
    }
    if (!in) throw std::runtime_error(fmt::format("reading back trace '{}' failed", path));
    requireReadsBack(bytes, path, [](std::string_view b, const std::string& p) { readTraceBytes(b, p, {}, TraceValues::Drop); });
}

}  // namespace llama
