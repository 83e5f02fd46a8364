#include "interrupt.h"

#include <csignal>
#include <cstdio>

#include "io/atomic_output.h"

namespace llama::cli {

namespace {

// What the handler touches: lock-free atomics (Session::requestStop sets one) and a sig_atomic_t.
std::atomic<Session*> interruptTarget{nullptr};
volatile std::sig_atomic_t interrupted = 0;
static_assert(std::atomic<Session*>::is_always_lock_free);

extern "C" void onInterrupt(int signal) {
    if (interrupted) {
        // The second Ctrl-C ends the process at once, without leaving temporary files behind.
        removeTemporaryOutputs();
        ::signal(signal, SIG_DFL);
        ::raise(signal);
        return;
    }
    interrupted = 1;
    if (Session* session = interruptTarget.load()) session->requestStop();
}

}  // namespace

InterruptHandling::InterruptHandling(Session& session) : session_(session) {
    interrupted = 0;
    interruptTarget = &session;
    struct sigaction action {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    // No SA_RESTART: a stepper waiting for a command on stdin wakes up and sees the stop.
    action.sa_flags = 0;
    sigaction(SIGINT, &action, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
}

InterruptHandling::~InterruptHandling() {
    std::signal(SIGINT, SIG_DFL);
    interruptTarget = nullptr;
}

void InterruptHandling::writeOut(const std::string& text) {
    if (stdoutClosed_) return;
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
        stdoutClosed_ = true;
        session_.requestStop();
    }
}

StopReason InterruptHandling::stopReason() const {
    if (interrupted) return StopReason::Interrupted;
    if (stdoutClosed_) return StopReason::OutputClosed;
    return StopReason::Running;
}

}  // namespace llama::cli
