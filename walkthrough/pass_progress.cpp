#include "pass_progress.h"

#include <fmt/format.h>
#include <unistd.h>

namespace llama::cli {

std::string duration(double seconds) {
    const auto s = int64_t(seconds);
    return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60) : fmt::format("{}:{:02}", s / 60, s % 60);
}

PassProgress::PassProgress(std::string what, std::string unit) : what_(std::move(what)), unit_(std::move(unit)), terminal_(isatty(STDERR_FILENO) != 0) {}

void PassProgress::operator()(int64_t done, int64_t total) {
    done_ = done, total_ = total;
    const auto now = std::chrono::steady_clock::now();
    if (done == 0) {
        start_ = now;  // the work's own time, not what came before it
        return;
    }
    const double seconds = std::chrono::duration<double>(now - start_).count(), each = seconds / done;
    if (done == 1 && each * total > kLongSeconds)
        fmt::print(stderr, "{}: {} {}, the first took {:.2f} s: about {} in all (Ctrl-C stops it)\n", what_, total, unit_, each, duration(each * total));
    // At most ten times a second: a fast pass would otherwise cost more in printing than in work.
    if (!terminal_ || (now - lastShown_ < std::chrono::milliseconds(100) && done < total)) return;
    lastShown_ = now;
    fmt::print(stderr, "\r\033[K{}: {} of {} {} | {} elapsed | {} left", what_, done, total, unit_, duration(seconds), duration(each * (total - done)));
    lineShown_ = true;
}

void PassProgress::finish() {
    if (lineShown_) fmt::print(stderr, "\n");
    lineShown_ = false;
}

}  // namespace llama::cli
