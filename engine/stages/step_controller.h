#pragma once
// An observer that can hold the engine at a stage: breakpoints by stage, layer and token step;
// step (next stage), next layer, next token, continue; and stop, which ends the generation
// cleanly from wherever it is. Commands may come from any thread (a viewer's UI thread) or
// from the pause listener itself (a terminal stepper reading the keyboard).
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "stages/stage_event.h"

namespace llama {

struct Breakpoint {
    StageId stage;
    std::optional<int> layer;  // any layer when empty
    std::optional<int> step;   // any token step when empty
    bool matches(const StageEvent& e) const;
};

class StepController : public StageObserver {
public:
    enum class Mode { Continue, Stage, Layer, Token };

    // Starts in `initial` mode: Stage pauses at the first stage, Continue runs to a breakpoint.
    explicit StepController(Mode initial = Mode::Stage) : mode_(initial) {}

    // Called on the engine thread when it is held at `event`, before it waits. A listener may
    // issue a command right away (then the engine goes on as soon as it returns).
    void setPauseListener(std::function<void(const StageEvent&)> listener) { listener_ = std::move(listener); }

    void onStage(const StageEvent& event) override;
    // Where to hold needs the stage and its place only; a pause listener that prints values
    // reads them from the views (or asks the event's stats).
    StageReads reads(StageId, int) const override { return StageReads::Shapes; }

    // Commands: each releases a held engine and says where to hold it next.
    void step();        // the next stage
    void nextLayer();   // the first stage of another layer (or after the layers)
    void nextToken();   // the next logits stage (19): the next token's logits, before it is sampled
    void continueRun(); // the next breakpoint
    void pause();       // hold at the next stage, whatever the mode
    void stop();        // end the generation (GenerationStopped is thrown on the engine thread)

    void addBreakpoint(const Breakpoint& b);
    void removeBreakpoints(StageId stage);
    void clearBreakpoints();
    std::vector<Breakpoint> breakpoints() const;

    bool isPaused() const;
    bool stopRequested() const;

private:
    void release(Mode mode);
    bool shouldPause(const StageEvent& e) const;

    mutable std::mutex mutex_;
    std::condition_variable changed_;
    Mode mode_;
    bool pauseRequested_ = false;
    bool paused_ = false;
    bool stop_ = false;
    int fromLayer_ = -1, fromStep_ = 0;  // where the last command was given
    std::vector<Breakpoint> breakpoints_;
    std::function<void(const StageEvent&)> listener_;
};

}  // namespace llama
