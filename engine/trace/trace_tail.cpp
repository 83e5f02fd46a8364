#include "trace/trace_tail.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "trace/trace_format.h"

namespace llama {

size_t TraceTail::read() {
    if (ended_) return 0;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path_.c_str(), "rb"), &std::fclose);
    if (!file) throw TraceError(fmt::format("'{}' cannot be opened: {}", path_, std::strerror(errno)));
    // What was appended since the last read (the file only grows while the run is recorded).
    if (std::fseek(file.get(), 0, SEEK_END) != 0) throw TraceError(fmt::format("'{}' cannot be read", path_));
    const long size = std::ftell(file.get());
    if (size < 0 || uint64_t(size) < pos_) throw TraceError(fmt::format("'{}' is shorter than when it was last read ({} bytes)", path_, pos_));
    std::string bytes(size_t(uint64_t(size) - pos_), '\0');
    std::fseek(file.get(), long(pos_), SEEK_SET);
    if (!bytes.empty() && std::fread(bytes.data(), 1, bytes.size(), file.get()) != bytes.size())
        throw TraceError(fmt::format("'{}' cannot be read at byte {}", path_, pos_));
    size_t at = 0;
    if (pos_ == 0) {
        if (bytes.size() < trace::kHeaderBytes) return 0;  // not even the header yet
        run_.version = checkTraceHeader(bytes, path_);
        at = trace::kHeaderBytes;
    }
    size_t read = 0;
    const std::string_view view(bytes);
    while (!ended_ && view.size() - at >= trace::kRecordHeaderBytes) {
        // A record whose bytes are not all there yet is read next time.
        uint32_t jsonBytes;
        uint64_t dataBytes;
        std::memcpy(&jsonBytes, view.data() + at + 4, 4);
        std::memcpy(&dataBytes, view.data() + at + 8, 8);
        if (uint64_t(view.size() - at - trace::kRecordHeaderBytes) < uint64_t(jsonBytes) + dataBytes) break;
        const TraceRecordView record = nextTraceRecord(view, at, path_, records_);
        ended_ = readTraceRecord(record, run_, path_, records_, records_ == 0);
        ++records_, ++read;
    }
    pos_ += at;
    return read;
}

}  // namespace llama
