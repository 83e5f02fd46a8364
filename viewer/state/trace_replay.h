#pragma once
// `llama-viewer --trace FILE`: a run recorded by `llama-walkthrough --trace` replayed through the
// same CaptureObserver and StepController as a live run, so every control and panel works the
// same way. The trace keeps what its options kept (attention scores, summaries of the rest),
// so panels that need other values say they were not recorded.
#include <memory>

#include "state/capture_observer.h"
#include "model/model.h"
#include "stages/step_controller.h"
#include "trace/trace_reader.h"

namespace llama::viewer {

// A weightless Model carrying the trace's args and a tokenizer that knows the pieces the trace
// recorded (prompt, generated and top tokens).
Model traceModel(const TraceRun& run, const std::string& path);

// Emits the trace's stages in order to `capture`, then to `controller` (which may hold or stop
// the replay, throwing GenerationStopped). Returns the trace's stop reason.
std::string replayTrace(const TraceRun& run, CaptureObserver& capture, StepController& controller);

// Where a replay in parts is: the next stage to emit, the generated tokens whose text it appended.
struct ReplayCursor {
    size_t next = 0, generated = 0;
};
// Emits stages [cursor.next, to) as replayTrace does, and moves the cursor past them: a run read
// as it is written (TraceTail) is replayed a few stages at a time. A logits stage takes its top
// tokens from its step's sample stage only when that is before `to`.
void replayTraceUpTo(const TraceRun& run, size_t to, ReplayCursor& cursor, CaptureObserver& capture, StepController& controller);

}  // namespace llama::viewer
