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

// The second Ctrl-C ends the process at once, without leaving temporary files behind.
void endAtOnce(int signal) {
    removeTemporaryOutputs();
    ::signal(signal, SIG_DFL);
    ::raise(signal);
}

extern "C" void onInterrupt(int signal) {
    if (interrupted) return endAtOnce(signal);
    interrupted = 1;
    if (Session* session = interruptTarget.load()) session->requestStop();
}

extern "C" void onInterruptFlag(int signal) {
    if (InterruptFlag::requested.exchange(true)) endAtOnce(signal);
}

// No SA_RESTART: a stepper waiting for a command on stdin wakes up and sees the stop.
void handleInterrupt(void (*handler)(int)) {
    struct sigaction action {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    sigaction(SIGINT, &action, nullptr);
}

}  // namespace

InterruptHandling::InterruptHandling(Session& session) : session_(session) {
    interrupted = 0;
    interruptTarget = &session;
    handleInterrupt(onInterrupt);
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

InterruptFlag::InterruptFlag() {
    requested = false;
    handleInterrupt(onInterruptFlag);
}

InterruptFlag::~InterruptFlag() { std::signal(SIGINT, SIG_DFL); }

}  // namespace llama::cli
