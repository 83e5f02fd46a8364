// The recorder's writer thread: batches of pending records handed over by the engine's thread,
// written as stage records (JSON and values) into the file.
#include "trace/trace_recorder.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "trace/trace_json.h"

namespace llama {

using nlohmann::json;
using namespace trace;

void TraceRecorder::handOver() {
#ifdef LLAMA_NO_THREADS
    // A build without threads (the browser page without cross-origin isolation) has no writer:
    // the batch is written here, on the engine's thread, and its records are used again.
    for (size_t i = 0; i < batchUsed_; ++i) writeStage(batch_[i]);
    batchUsed_ = 0;
    return;
#endif
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return queued_.size() < kMaxQueuedBatches || failure_ || closing_; });
    if (failure_) std::rethrow_exception(failure_);
    batch_.resize(batchUsed_);
    queued_.push_back(std::move(batch_));
    batch_.clear();
    if (!spare_.empty()) {
        batch_ = std::move(spare_.front());
        spare_.pop_front();
    }
    batchUsed_ = 0;
    wake_.notify_one();
}

void TraceRecorder::writerLoop() {
    std::unique_lock lock(mutex_);
    while (true) {
        wake_.wait(lock, [&] { return !queued_.empty() || closing_; });
        if (queued_.empty()) return;  // closing, and everything handed over is written
        std::vector<PendingRecord> batch = std::move(queued_.front());
        queued_.pop_front();
        writing_ = true;
        room_.notify_all();
        lock.unlock();
        try {
            for (const PendingRecord& r : batch) writeStage(r);
        } catch (...) {
            lock.lock();
            failure_ = std::current_exception();
            writing_ = false;
            queued_.clear();
            room_.notify_all();
            return;
        }
        lock.lock();
        spare_.push_back(std::move(batch));
        writing_ = false;
        room_.notify_all();  // a flush() waits for the queue to be written
    }
}

const std::string& TraceRecorder::flush() {
    if (batchUsed_) handOver();
#ifndef LLAMA_NO_THREADS
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return (queued_.empty() && !writing_) || failure_; });
    if (failure_) std::rethrow_exception(failure_);
#endif
    // The writer is idle until the engine's thread (this one) hands it more.
    out_.stream().flush();
    return out_.writingPath();
}

void TraceRecorder::stopWriter() {
    if (!writer_.joinable()) return;
    {
        std::lock_guard lock(mutex_);
        closing_ = true;
    }
    wake_.notify_one();
    writer_.join();
}

void TraceRecorder::writeStage(const PendingRecord& r) {
    std::string& j = json_;
    j.clear();
    auto out = std::back_inserter(j);
    const StageInfo& info = stageInfo(r.stage);
    fmt::format_to(out, FMT_COMPILE(R"({{"stage":"{}","number":{},"layer":{},"step":{},"startPos":{},"message":)"), info.key, info.number,
                   r.layer, r.step, r.startPos);
    appendString(j, r.message);
    j += R"(,"tensors":[)";
    for (size_t i = 0; i < r.tensorCount; ++i) {
        const PendingTensor& t = r.tensors[i];
        j += i ? R"(,{"name":)" : R"({"name":)";
        appendString(j, t.name);
        j += R"(,"shape":[)";
        for (size_t d = 0; d < t.shape.size(); ++d) fmt::format_to(out, FMT_COMPILE("{}{}"), d ? "," : "", t.shape[d]);
        fmt::format_to(out, FMT_COMPILE(R"(],"dtype":"{}")"), dtypeName(t.dtype));
        if (t.stats) statsText_.append(j, *t.stats);
        if (t.valuesOffset >= 0) {
            fmt::format_to(out, FMT_COMPILE(R"(,"values":{{"encoding":"{}","offset":{},"bytes":{})"), t.dtype == DType::I32 ? "i32" : "bf16",
                           t.valuesOffset, t.valuesBytes);
            if (t.repeat > 1) fmt::format_to(out, FMT_COMPILE(R"(,"repeat":{})"), t.repeat);
            j += '}';
            if (t.dtype == DType::I32) {
                json tokens = json::array();
                for (int32_t id : t.tokens) tokens.push_back(tokenJson(*tokenizer_, id));
                j += R"(,"tokens":)" + jsonText(tokens);
            }
        }
        j += '}';
    }
    j += ']';
    if (r.logits) {
        j += R"(,"top":)" + jsonText(topJson(*tokenizer_, sampler_.topTokens(*r.logits, options_.topK)));
        if (r.penalizedLogits) j += R"(,"topPenalized":)" + jsonText(topJson(*tokenizer_, sampler_.topTokens(*r.penalizedLogits, options_.topK)));
    }
    j += r.extra + '}';
    writeRecord(trace::kStageRecord, j, r.data);
}

uint64_t TraceRecorder::bytesWritten() const { return written_.load(std::memory_order_relaxed); }

void TraceRecorder::writeRecord(std::string_view kind, const std::string& json, const std::string& data) {
    const uint32_t jsonBytes = uint32_t(json.size());
    const uint64_t dataBytes = data.size();
    std::ofstream& out = out_.stream();
    out.write(kind.data(), 4);
    out.write(reinterpret_cast<const char*>(&jsonBytes), sizeof jsonBytes);
    out.write(reinterpret_cast<const char*>(&dataBytes), sizeof dataBytes);
    out.write(json.data(), std::streamsize(json.size()));
    out.write(data.data(), std::streamsize(data.size()));
    if (!out) throw std::runtime_error(fmt::format("writing trace '{}' failed", path_));
    written_.fetch_add(trace::kRecordHeaderBytes + json.size() + data.size(), std::memory_order_relaxed);
}

}  // namespace llama
