#include "stages/step_controller.h"

#include <algorithm>

namespace llama {

bool Breakpoint::matches(const StageEvent& e) const {
    return e.stage == stage && (!layer || *layer == e.layer) && (!step || *step == e.step);
}

bool StepController::shouldPause(const StageEvent& e) const {
    if (pauseRequested_) return true;
    for (const auto& b : breakpoints_)
        if (b.matches(e)) return true;
    switch (mode_) {
        case Mode::Continue: return false;
        case Mode::Stage: return true;
        case Mode::Layer: return e.step != fromStep_ || (e.layer != fromLayer_ && (e.stage == StageId::BlockForward || e.layer == -1));
        // "Next token" holds where the token's logits and every layer's logit lens exist: its
        // logits stage, just before the sampler picks it. Held at step N's logits, that is step N+1's.
        case Mode::Token: return e.stage == StageId::Logits;
    }
    return false;
}

void StepController::onStage(const StageEvent& event) {
    std::unique_lock lock(mutex_);
    if (stop_) throw GenerationStopped{};
    if (!shouldPause(event)) return;
    pauseRequested_ = false;
    paused_ = true;
    fromLayer_ = event.layer;
    fromStep_ = event.step;
    if (listener_) {
        // The listener may call a command, which takes the lock.
        lock.unlock();
        listener_(event);
        lock.lock();
    }
    changed_.wait(lock, [&] { return !paused_ || stop_; });
    if (stop_) throw GenerationStopped{};
}

void StepController::release(Mode mode) {
    {
        std::lock_guard lock(mutex_);
        mode_ = mode;
        paused_ = false;
    }
    changed_.notify_all();
}

void StepController::step() { release(Mode::Stage); }
void StepController::nextLayer() { release(Mode::Layer); }
void StepController::nextToken() { release(Mode::Token); }
void StepController::continueRun() { release(Mode::Continue); }

void StepController::pause() {
    std::lock_guard lock(mutex_);
    pauseRequested_ = true;
}

void StepController::stop() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
        paused_ = false;
    }
    changed_.notify_all();
}

void StepController::addBreakpoint(const Breakpoint& b) {
    std::lock_guard lock(mutex_);
    breakpoints_.push_back(b);
}

void StepController::removeBreakpoints(StageId stage) {
    std::lock_guard lock(mutex_);
    std::erase_if(breakpoints_, [&](const Breakpoint& b) { return b.stage == stage; });
}

void StepController::clearBreakpoints() {
    std::lock_guard lock(mutex_);
    breakpoints_.clear();
}

std::vector<Breakpoint> StepController::breakpoints() const {
    std::lock_guard lock(mutex_);
    return breakpoints_;
}

bool StepController::isPaused() const {
    std::lock_guard lock(mutex_);
    return paused_;
}

bool StepController::stopRequested() const {
    std::lock_guard lock(mutex_);
    return stop_;
}

}  // namespace llama
