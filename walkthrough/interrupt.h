#pragma once
// Ctrl-C and a closed stdout end a run the way the stepper's `q` does: the engine stops at the
// next stage boundary, the trace gets its END record, the debug log is flushed, and the summary
// says why ("stopped by: interrupt"). A second Ctrl-C ends the process at once.
#include <atomic>
#include <string>

#include "session/session.h"

namespace llama::cli {

class InterruptHandling {
public:
    // Ctrl-C asks `session` to stop; SIGPIPE is ignored so that writing to a closed stdout is an
    // error we see (writeOut) instead of a silent death with half-written files.
    explicit InterruptHandling(Session& session);
    ~InterruptHandling();
    InterruptHandling(const InterruptHandling&) = delete;
    InterruptHandling& operator=(const InterruptHandling&) = delete;

    // Prints generated text; when stdout is closed (a pipe whose reader left), asks the engine
    // to stop instead.
    void writeOut(const std::string& text);

    // Why the run was cut short by us (Interrupted, OutputClosed), or Running: the generator's own
    // reason stands.
    StopReason stopReason() const;
    bool stdoutClosed() const { return stdoutClosed_; }

private:
    Session& session_;
    bool stdoutClosed_ = false;
};

// Ctrl-C for work without a Session (training, patching): it sets `requested`, which the
// InferenceContext reads (stopWhen), so the pass under way ends at its next stage with
// GenerationStopped; a second Ctrl-C ends the process at once, as above.
class InterruptFlag {
public:
    static inline std::atomic<bool> requested{false};
    InterruptFlag();
    ~InterruptFlag();
    InterruptFlag(const InterruptFlag&) = delete;
    InterruptFlag& operator=(const InterruptFlag&) = delete;
};

}  // namespace llama::cli
