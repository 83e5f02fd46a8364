#include "trace/debug_log_observer.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <sstream>
#include <stdexcept>

namespace llama {

DebugLogObserver::DebugLogObserver(const std::string& path) : out_(path), path_(path), last_(std::chrono::steady_clock::now()) {}

void DebugLogObserver::line(const std::string& message) {
    auto nowSteady = std::chrono::steady_clock::now();
    double secs = std::chrono::duration<double>(nowSteady - last_).count();
    last_ = nowSteady;
    auto now = std::chrono::system_clock::now();
    auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
    std::time_t t = std::chrono::system_clock::to_time_t(now);
    std::tm tm{};
    localtime_r(&t, &tm);
    out_.stream() << fmt::format("[DEBUG]{:%H:%M:%S}.{:06d} {} ({:.4f} secs)\n", tm, micros, message, secs);
}

void DebugLogObserver::onStage(const StageEvent& event) {
    std::istringstream lines(event.message);
    for (std::string l; std::getline(lines, l);) line(l);
    // A full disk ends the run here rather than after hours of lines that went nowhere: a write
    // fails when the stream's buffer is full (every few dozen lines), not flushed at every stage,
    // which cost a system call per stage.
    if (!out_.stream()) throw std::runtime_error("writing the debug log '" + path_ + "' failed (disk full?)");
}

}  // namespace llama
