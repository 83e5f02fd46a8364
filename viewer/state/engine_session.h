#pragma once
// The engine on a worker thread, driven by the viewer: load a model, start a generation held by
// a StepController, send it step/layer/token/continue/pause/stop commands from the UI thread,
// and read what it captured through a CaptureObserver. Loading, the prompt and the run itself
// are the engine's session facade's (session/session.h), as in the CLI. Stop always ends the
// run: a held engine is released with GenerationStopped and the worker is joined, so closing the
// window never hangs.
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "model/model.h"
#include "session/session.h"
#include "stages/step_controller.h"
#include "state/capture_observer.h"
#include "state/trace_comparison.h"
#include "trace/patch_trace.h"
#include "trace/trace_reader.h"

namespace llama::viewer {

// What the viewer opens: a model the engine computes with, or a recorded run it replays.
struct ViewerSource {
    ModelSource model;
    std::string trace = {};  // a trace file (llama-walkthrough --trace): replayed instead of the model
    std::string compare = {};  // a second trace, paired with `trace` for the Compare panel
    std::string traceLabel = {};  // how `trace` is named on screen when not by its path ("this live run")
    std::string describe() const;  // paths as displayPath() shows them
};

// The engine's settings of a generation, with the viewer's defaults, and what the viewer shows.
struct RunSettings : GenerationSettings {
    RunSettings() {
        system = "You are a helpful assistant.";
        maxTokens = 8;
    }
    int topK = 10;  // tokens shown in the top-logits chart
    // A live run records its own trace (with every attention cell's inputs) in the temporary
    // folder, for File > Save trace and Compare. Off by default: recording makes a run of the
    // bundled model about 2.8 times as long (docs/viewer.md, "What a run costs"), which the
    // viewer's own runs should not pay unasked.
    bool recordTrace = false;
    // The logit lens after every block: one more output projection per layer (on Llama 3.1 8B
    // the work of two blocks and more), so it can be turned off for large models.
    bool lens = true;
    // Keep every step's logits whole (a --no-kv-cache run keeps them anyway): the KV cache check
    // compares them value by value, as llama-walkthrough --no-kv-cache does.
    bool keepStepLogits = false;
};

// A finished live run's logits of every step and the tokens it generated (session/kv_cache_check.h).
struct RunLogits {
    std::vector<Tensor> logits;
    std::vector<int32_t> generated;
};

enum class SessionState { Empty, Loading, Ready, Running, Paused, Finished, Failed };
// What a step, next layer, next token or continue says after the run finished (it keeps the run).
inline constexpr const char* kRunFinishedNotice = "run finished; Ctrl+R to restart";
const char* stateName(SessionState s);

struct HeldAt {
    StageId stage;
    int layer, step;
};

// How far loading got, as the reader reports it: the weights' bytes read in (a model), or the
// trace's bytes parsed, record by record (a trace, then the one it is compared with).
struct LoadMeter {
    std::string what;  // "reading weights", "reading trace run.trace"
    size_t done = 0, total = 0;
    // In [0, 1], or nothing while the reader has not said how much there is.
    std::optional<float> fraction() const;
    std::string describe() const;  // "reading trace run.trace: 12.3 of 40.1 MB"
};

struct SessionStatus {
    SessionState state = SessionState::Empty;
    std::string message;  // the error, or how the run ended
    std::optional<HeldAt> held;
    LoadMeter loading;  // while Loading, and what the last load read
    uint64_t holds = 0;  // how many times the engine has been held, over every run: a new hold, a new number
    // The last run's wall time from start() to its end, its trace written, holds included (none
    // until a run ended): what scripts/bench-viewer-run.sh compares with the CLI's.
    std::optional<double> runSeconds;
};

class EngineSession {
public:
    EngineSession() = default;
    ~EngineSession();
    EngineSession(const EngineSession&) = delete;
    EngineSession& operator=(const EngineSession&) = delete;

    // Ends any run and loads the model on the worker thread (state Loading, then Ready or Failed).
    void load(const ViewerSource& source);
    // A trace opened over a live model keeps that model's session (its engine and its last run's
    // records) behind it: backToModel() brings them back without reading the weights again, the
    // last run shown as it ended (a run still going when the trace opened is stopped there).
    bool hasModelBehind() const;
    bool backToModel();  // false when no model is behind the trace

    // Ends any run and starts a generation (or a trace's replay, whose prompt and settings are the
    // recorded ones): Mode::Stage holds at the first stage, Continue runs.
    // Breakpoints hold the engine unless `honourBreakpoints` is false ("Run" ignores them).
    void start(const RunSettings& settings, StepController::Mode initial, bool honourBreakpoints);
    void restart();  // the last settings again, held at the first stage

    // After a finished run these keep it and set the status message to kRunFinishedNotice.
    void step();
    void nextLayer();
    void nextToken();
    void continueRun();  // to the next breakpoint
    // Continues a held run to the stage `target` names (stage, layer and step: a "run to here"),
    // holding there once, or earlier at one of the breakpoints on the way; then the breakpoints
    // are the learner's alone again. Nothing happens unless a run is held or running.
    void runTo(const Breakpoint& target);
    void runFree();      // to the end, ignoring breakpoints (Pause still holds it)
    void pause();
    void stop();         // ends the run and joins the worker

    void setBreakpoints(std::vector<Breakpoint> breakpoints);
    const std::vector<Breakpoint>& breakpoints() const { return breakpoints_; }

    SessionStatus status() const;
    std::shared_ptr<const Model> model() const;
    // A recorded run is loaded (--trace, File > Open): it replays with its own prompt and settings.
    bool isReplay() const;
    // The trace being replayed (nullptr for a live run): the Batch panel reads a batch's records.
    std::shared_ptr<const TraceRun> trace() const;
    // Whether the logit lens is computed as runs go (CaptureObserver::wantLens): while the Lens
    // panel is shown. computeLens computes a held or finished run's `step` on request.
    void wantLens(bool want);
    bool computeLens(int step);
    // The current run's capture (nullptr before the first run).
    std::shared_ptr<const CaptureObserver> capture() const;
    // The loaded traces paired (--compare), or nullptr.
    std::shared_ptr<const TraceComparison> comparison() const;
    // A patch trace's grid (`patch --trace`), or nullptr: then the trace replayed is its clean run
    // and comparison() pairs it with the corrupted one.
    std::shared_ptr<const PatchGrid> patchGrid() const;
    // The settings of the current run; once a trace is loaded, its recorded ones (prompt,
    // sampling, what-if), so the Output panel shows the trace's prompt before the replay starts.
    RunSettings settings() const;

    // The last live run's logits of every step, once it finished (nullptr before, or when it kept
    // none: RunSettings::keepStepLogits, whatIf.noKvCache).
    std::shared_ptr<const RunLogits> runLogits() const;

    // The last live run's own trace, once the run finished ("" before, or when not recorded).
    std::string recordedTrace() const;
    // Copies it to `path` (the caller chose a free name); throws saying why there is none.
    std::string saveRecordedTrace(const std::string& path) const;

    // Polls until the engine is held, finished or failed (tests and scripts without a window).
    bool waitUntilSettled(std::chrono::milliseconds timeout) const;

private:
    // load() of a patch trace, on the worker thread.
    void loadPatchTrace(const ViewerSource& source);
    struct Run;
    void attachObservers(Session& engine, Run* run);
    void join();
    void command(void (StepController::*fn)());
    void applyBreakpoints(bool honour);

    mutable std::mutex mutex_;
    std::thread worker_;
    SessionState state_ = SessionState::Empty;
    std::string message_;
    std::string outcome_;  // how the last run ended
    LoadMeter loading_;
    std::optional<HeldAt> held_;
    uint64_t holds_ = 0;
    std::optional<double> runSeconds_;
    std::string recordedTrace_;  // the last finished live run's temporary trace
    std::string recordError_;    // why the last live run could not be recorded
    std::shared_ptr<const RunLogits> runLogits_;  // the last finished live run's, when it kept them
    void forgetRecordedTrace();
    std::shared_ptr<Session> engine_;         // the loaded model's facade (none for a trace)
    std::shared_ptr<const Model> model_;     // the engine's model, or the trace's
    std::shared_ptr<const TraceRun> trace_;  // replaying instead of computing
    std::shared_ptr<const TraceComparison> comparison_;
    std::shared_ptr<const PatchGrid> patch_;
    std::shared_ptr<Run> run_;
    RunSettings settings_;
    struct LiveModel {  // what backToModel() restores
        std::shared_ptr<Session> engine;
        std::shared_ptr<const Model> model;
        std::shared_ptr<Run> run;
        RunSettings settings;
        std::string outcome;
    };
    std::optional<LiveModel> live_;
    std::vector<Breakpoint> breakpoints_;
    std::optional<Breakpoint> runTarget_;  // runTo's, until the run holds there
    bool lensWanted_ = true;
};

}  // namespace llama::viewer
