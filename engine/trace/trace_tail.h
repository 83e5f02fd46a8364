#pragma once
// A trace read as it is written (a run held at its stages, TraceRecorder::flush after each): each
// read() parses only the records appended since the last one, so following a run costs the same at
// its 256th token as at its first. The run it holds grows: META, then stages, then END.
#include <cstdint>
#include <string>

#include "trace/trace_reader.h"

namespace llama {

class TraceTail {
public:
    explicit TraceTail(std::string path) : path_(std::move(path)) {}

    // Reads the whole records written since the last call (a record still being written waits for
    // the next one); the number of records read. Throws TraceError naming the file and record.
    size_t read();

    const std::string& path() const { return path_; }
    TraceRun& run() { return run_; }
    const TraceRun& run() const { return run_; }
    bool ended() const { return ended_; }

private:
    std::string path_;
    TraceRun run_;
    uint64_t pos_ = 0;  // bytes of the file read: the header and whole records
    int records_ = 0;
    bool ended_ = false;
};

}  // namespace llama
