#pragma once
// A trace read as it is written (a run held at its stages, TraceRecorder::flush after each): each
// read() parses only the records appended since the last one, so following a run costs the same at
// its 256th token as at its first. The run it holds grows: META, then stages, then END.
#include <cstdint>
#include <string>

#include "trace/trace_reader.h"

namespace llama {

// The same values in fewer bytes, for a reader that holds a run's values for long (the live page's
// replay): bfloat16 where every F32 value is one (a trace stores its values as bfloat16, so all
// are), and a rank-3 tensor whose first dimension repeats its blocks (attention's keys, the same
// for each query head of a KV head) holding each block once, read through a view that repeats it
// (Tensor::strided). Every element reads back as the same float; anything else is returned as is.
Tensor compactTraceValues(const Tensor& values);

// What a tail keeps of each stage's values as it reads them: all, as F32; all, as compactTraceValues
// makes them (a run read at once then never holds more than one record's values as F32); none.
enum class TailValues { Keep, Compact, Drop };

class TraceTail {
public:
    // `name`: the file's name in messages, when it is not `path` (a trace checked at its temporary
    // name before it is moved into place).
    explicit TraceTail(std::string path, TailValues values = TailValues::Keep, std::string name = {})
        : path_(std::move(path)), name_(name.empty() ? path_ : std::move(name)), values_(values) {}

    // Reads the whole records written since the last call (a record still being written waits for
    // the next one); the number of records read. Throws TraceError naming the file and record.
    size_t read();
    // After read(): throws TraceError unless the file is one whole run, as readTraceBytes would
    // (its END read, no byte after it, the records agreeing: checkTraceRecordsAgree).
    void requireWhole() const;

    const std::string& path() const { return path_; }
    TraceRun& run() { return run_; }
    const TraceRun& run() const { return run_; }
    bool ended() const { return ended_; }

private:
    std::string path_, name_;
    TraceRun run_;
    uint64_t pos_ = 0;  // bytes of the file read: the header and whole records
    int records_ = 0;
    uint64_t size_ = 0;  // the file's bytes at the last read
    bool ended_ = false;
    TailValues values_;
};

}  // namespace llama
