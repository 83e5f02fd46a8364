#include "trace/trace_tail.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "trace/trace_consistency.h"
#include "trace/trace_format.h"

namespace llama {

Tensor compactTraceValues(const Tensor& values) {
    if (!values.hasData() || values.dtype() != DType::F32 || !values.isContiguous() || values.numel() == 0) return values;
    const int64_t n = values.numel();
    std::vector<uint16_t> high(static_cast<size_t>(n));
    const float* f = values.data<float>();
    for (int64_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, f + i, 4);
        if (bits & 0xFFFFu) return values;  // not all bfloat16: kept as F32
        high[size_t(i)] = uint16_t(bits >> 16);
    }
    // Blocks of the first dimension: `repeat` consecutive ones alike, every group of them.
    const int64_t blocks = values.rank() == 3 ? values.dim(0) : 1, block = n / blocks;
    const auto same = [&](int64_t a, int64_t b) { return std::memcmp(&high[size_t(a * block)], &high[size_t(b * block)], size_t(block) * 2) == 0; };
    int64_t repeat = 1;
    while (repeat < blocks && same(repeat, 0)) ++repeat;
    bool repeated = repeat > 1 && blocks % repeat == 0;
    for (int64_t b = repeat; repeated && b < blocks; ++b) repeated = same(b, b / repeat * repeat);
    if (!repeated) repeat = 1;
    Shape baseShape = values.shape();
    baseShape[0] /= repeat;
    Tensor base = Tensor::uninitialized(baseShape, DType::BF16);
    uint16_t* out = base.mutableData<uint16_t>();
    for (int64_t b = 0; b < blocks / repeat; ++b) std::memcpy(out + b * block, &high[size_t(b * repeat * block)], size_t(block) * 2);
    if (repeat == 1) return base;
    return Tensor::strided(values.shape(), rowMajorStrides(baseShape), base, {repeat, 1, 1});
}

size_t TraceTail::read() {
    if (ended_) return 0;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path_.c_str(), "rb"), &std::fclose);
    if (!file) throw TraceError(fmt::format("'{}' cannot be opened: {}", name_, std::strerror(errno)));
    // What was appended since the last read (the file only grows while the run is recorded).
    if (std::fseek(file.get(), 0, SEEK_END) != 0) throw TraceError(fmt::format("'{}' cannot be read", name_));
    const long size = std::ftell(file.get());
    if (size < 0 || uint64_t(size) < pos_) throw TraceError(fmt::format("'{}' is shorter than when it was last read ({} bytes)", name_, pos_));
    size_ = uint64_t(size);
    std::fseek(file.get(), long(pos_), SEEK_SET);
    // The file's next `n` bytes, after the first `keep` of `bytes`.
    std::string bytes;
    const auto take = [&](size_t keep, uint64_t n) {
        bytes.resize(keep + size_t(n));
        if (n && std::fread(bytes.data() + keep, 1, size_t(n), file.get()) != size_t(n))
            throw TraceError(fmt::format("'{}' cannot be read at byte {}", name_, pos_));
    };
    if (pos_ == 0) {
        if (uint64_t(size) < trace::kHeaderBytes) return 0;  // not even the header yet
        take(0, trace::kHeaderBytes);
        run_.version = checkTraceHeader(bytes, name_);
        pos_ = trace::kHeaderBytes;
    }
    // One record at a time, so that a finished run read at once holds one record's bytes beside
    // its decoded values, not the whole file's.
    size_t read = 0;
    while (!ended_ && uint64_t(size) - pos_ >= trace::kRecordHeaderBytes) {
        take(0, trace::kRecordHeaderBytes);
        uint32_t jsonBytes;
        uint64_t dataBytes;
        std::memcpy(&jsonBytes, bytes.data() + 4, 4);
        std::memcpy(&dataBytes, bytes.data() + 8, 8);
        // A record whose bytes are not all there yet is read next time.
        if (uint64_t(size) - pos_ - trace::kRecordHeaderBytes < uint64_t(jsonBytes) + dataBytes) break;
        take(trace::kRecordHeaderBytes, uint64_t(jsonBytes) + dataBytes);
        size_t at = 0;
        const TraceRecordView record = nextTraceRecord(bytes, at, name_, records_);
        const size_t stages = run_.stages.size();
        ended_ = readTraceRecord(record, run_, name_, records_, records_ == 0);
        if (values_ != TailValues::Keep && run_.stages.size() > stages)
            for (TracedTensor& t : run_.stages.back().tensors)
                if (t.hasValues()) t.values = values_ == TailValues::Compact ? compactTraceValues(t.values) : Tensor();
        pos_ += at;
        ++records_, ++read;
    }
    return read;
}

void TraceTail::requireWhole() const {
    if (!ended_)
        throw TraceError(records_ == 0 && pos_ < trace::kHeaderBytes
                             ? fmt::format("'{}' is truncated: it ends inside the file header", name_)
                             : fmt::format("'{}' is truncated: it ends after {} records without its END record (was the run cut short?)", name_,
                                           records_));
    if (size_ != pos_) throw TraceError(fmt::format("'{}': {} unexpected bytes after the END record", name_, size_ - pos_));
    checkTraceRecordsAgree(run_, name_, 0, true);
}

}  // namespace llama
