#pragma once
// Long work heard from on stderr. On a terminal, one line rewritten in place: passes done of all,
// and the time left at the rate so far. Anywhere else (a log, a pipe, a test's capture) only one
// line, after the first pass, when the work will take long: how many passes, how long each took
// and so about how long in all. A line per pass, or per few seconds, would bury a log under
// carriage returns or thousands of lines; one estimate says what a reader waiting on a pipe needs.
#include <chrono>
#include <cstdint>
#include <string>

namespace llama::cli {

// Seconds as m:ss, or h:mm:ss from an hour.
std::string duration(double seconds);

class PassProgress {
public:
    // `what` heads the lines ("patch"); `unit` names a pass ("forward passes").
    PassProgress(std::string what, std::string unit);
    ~PassProgress() { finish(); }
    PassProgress(const PassProgress&) = delete;
    PassProgress& operator=(const PassProgress&) = delete;

    // (0, total) as the passes begin, then (done, total) after each.
    void operator()(int64_t done, int64_t total);
    // Ends the rewritten line, so that what follows starts on a line of its own.
    void finish();
    int64_t done() const { return done_; }
    int64_t total() const { return total_; }

    // Work estimated to take longer than this gets the line with the estimate.
    static constexpr double kLongSeconds = 10;

private:
    std::string what_, unit_;
    bool terminal_;
    bool lineShown_ = false;
    int64_t done_ = 0, total_ = 0;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), lastShown_{};
};

}  // namespace llama::cli
