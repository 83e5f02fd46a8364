#include "state/engine_session.h"

#include "session/kv_cache_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "stages/numbering.h"
#include "state/panel_labels.h"
#include "state/trace_replay.h"
#include "trace/trace_recorder.h"

namespace llama::viewer {

struct EngineSession::Run {
    // `transformer`: the engine's, for the logit lens (none when replaying a trace, which recorded it).
    Run(const RunSettings& s, StepController::Mode mode, const LlamaTransformer* transformer)
        : controller(mode), lens(transformer ? std::make_unique<LogitLens>(*transformer) : nullptr),
          capture(std::make_shared<CaptureObserver>(s.sampling, s.topK, MemoryPolicy{}, lens.get())) {}
    StepController controller;
    std::unique_ptr<LogitLens> lens;
    std::shared_ptr<CaptureObserver> capture;
    std::unique_ptr<TraceRecorder> recorder;  // a live run's own trace (RunSettings::recordTrace)
    std::string tracePath;
    std::unique_ptr<StepLogits> stepLogits;  // every step's logits (RunSettings::keepStepLogits, --no-kv-cache)
};

namespace {
// A replay shows what was recorded: its prompt and sampling, not the prompt box's.
RunSettings recordedSettings(RunSettings s, const TraceRun& trace) {
    s.prompt = trace.run.prompt;
    s.sampling = trace.run.sampling;
    s.maxTokens = trace.run.maxTokens;
    s.mode = PromptMode::Completion;
    s.whatIf = trace.run.whatIf;
    s.grammar.reset();  // a replay samples nothing; where its grammar came from is still named (exports)
    s.grammarSource = trace.run.grammar;
    return s;
}

// The engine's threads yield to the UI thread: the window stays responsive while a layer
// computes, and the engine loses nothing when the UI is idle. On Linux the nice value is per
// thread and the compute pool's threads, created from this thread on first use, inherit it.
void yieldToTheUi() { setpriority(PRIO_PROCESS, 0, 10); }
}  // namespace

std::string ViewerSource::describe() const {
    if (trace.empty()) return model.kind == ModelSource::Kind::Files ? displayPath(model.pathOrPreset) : model.describe();
    const std::string name = traceLabel.empty() ? "trace " + displayPath(trace) : traceLabel;
    return compare.empty() ? fmt::format("{} (replay)", name) : fmt::format("{} (replay), compared with {}", name, displayPath(compare));
}

std::optional<float> LoadMeter::fraction() const {
    if (total == 0) return std::nullopt;
    return float(double(std::min(done, total)) / double(total));
}

std::string LoadMeter::describe() const {
    if (total == 0) return what;
    return fmt::format("{}: {:.1f} of {:.1f} MB", what, double(done) / 1e6, double(total) / 1e6);
}

const char* stateName(SessionState s) {
    switch (s) {
        case SessionState::Empty: return "no model";
        case SessionState::Loading: return "loading";
        case SessionState::Ready: return "ready";
        case SessionState::Running: return "running";
        case SessionState::Paused: return "paused";
        case SessionState::Finished: return "finished";
        case SessionState::Failed: return "failed";
    }
    return "?";
}

EngineSession::~EngineSession() {
    stop();
    forgetRecordedTrace();
}

void EngineSession::forgetRecordedTrace() {
    // The temporary trace of the last live run; one saved was copied elsewhere.
    if (recordedTrace_.empty()) return;
    std::error_code ec;
    std::filesystem::remove(recordedTrace_, ec);
    recordedTrace_.clear();
}

std::shared_ptr<const RunLogits> EngineSession::runLogits() const {
    std::lock_guard lock(mutex_);
    return runLogits_;
}

std::string EngineSession::recordedTrace() const {
    std::lock_guard lock(mutex_);
    return recordedTrace_;
}

std::string EngineSession::saveRecordedTrace(const std::string& path) const {
    const std::string from = recordedTrace();
    if (from.empty())
        throw std::runtime_error(recordError_.empty() ? "no finished live run to save: run the model to its end first (a replayed trace is a file already)"
                                                      : "this run was not recorded: " + recordError_);
    std::filesystem::copy_file(from, path, std::filesystem::copy_options::overwrite_existing);
    return path;
}

void EngineSession::join() {
    if (worker_.joinable()) worker_.join();
}

void EngineSession::load(const ViewerSource& source) {
    stop();
    {
        std::lock_guard lock(mutex_);
        // A trace over a live model keeps the model behind it; another model replaces it.
        if (source.trace.empty()) live_.reset();
        else if (engine_) live_ = LiveModel{engine_, model_, run_, settings_, outcome_};
        state_ = SessionState::Loading;
        message_ = "loading " + source.describe();
        engine_.reset();
        model_.reset();
        trace_.reset();
        comparison_.reset();
        patch_.reset();
        run_.reset();
        loading_ = {};
    }
    worker_ = std::thread([this, source] {
        yieldToTheUi();
        // The readers' own counts, from the worker: the UI thread reads them with the status.
        auto meter = [this](std::string what) {
            return [this, what = std::move(what)](size_t done, size_t total) {
                std::lock_guard lock(mutex_);
                loading_ = {what, done, total};
            };
        };
        try {
            if (!source.trace.empty() && isPatchTrace(source.trace)) {
                loadPatchTrace(source);
                return;
            }
            if (!source.trace.empty()) {
                auto trace = std::make_shared<const TraceRun>(readTrace(source.trace, meter("reading trace " + displayPath(source.trace))));
                auto model = std::make_shared<Model>(traceModel(*trace, source.trace));
                auto comparison = source.compare.empty()
                                      ? nullptr
                                      : compareTraces(trace, source.trace, source.compare, meter("reading trace " + displayPath(source.compare)));
                std::lock_guard lock(mutex_);
                trace_ = std::move(trace);
                settings_ = recordedSettings(settings_, *trace_);
                comparison_ = std::move(comparison);
                model_ = std::move(model);
                state_ = SessionState::Ready;
                message_ = fmt::format("loaded {}: {} stages", source.describe(), trace_->stages.size());
                return;
            }
            auto engine = std::make_shared<Session>();
            LoadOptions options;
            options.progress = meter("reading weights");
            engine->load(source.model, options);
            std::lock_guard lock(mutex_);
            model_ = engine->model();
            engine_ = std::move(engine);
            state_ = SessionState::Ready;
            message_ = "loaded " + source.describe();
        } catch (const std::exception& e) {
            std::lock_guard lock(mutex_);
            state_ = SessionState::Failed;
            message_ = e.what();
        }
    });
}

bool EngineSession::hasModelBehind() const {
    std::lock_guard lock(mutex_);
    return live_.has_value();
}

bool EngineSession::backToModel() {
    stop();
    std::lock_guard lock(mutex_);
    if (!live_) return false;
    engine_ = std::move(live_->engine);
    model_ = std::move(live_->model);
    run_ = std::move(live_->run);
    settings_ = std::move(live_->settings);
    outcome_ = std::move(live_->outcome);
    live_.reset();
    trace_.reset();
    comparison_.reset();
    patch_.reset();
    held_.reset();
    state_ = run_ ? SessionState::Finished : SessionState::Ready;
    message_ = run_ ? fmt::format("back to the model; its last run: {}", outcome_.empty() ? "stopped" : outcome_) : "back to the model";
    return true;
}

// On the worker thread, once it yields to the UI: the trace recorder's writer thread, started
// here, inherits the engine's priority, as in the CLI (trace_recorder.h: the engine's pool gives
// it the core while it polls), not the UI thread's.
void EngineSession::attachObservers(Session& engine, Run* run) {
    // Capture first, then the controller: when the engine is held, the stage is already recorded.
    engine.clearObservers();
    engine.addObserver(run->capture.get());
    if (settings_.recordTrace) {
        // A live run records its own trace, as --trace does (with every attention cell's inputs),
        // in the temporary folder: File > Save trace keeps it, Compare pairs it with another.
        static std::atomic<int> runs{0};
        run->tracePath = (std::filesystem::temp_directory_path() / fmt::format("llama-viewer-{}-{}.trace", getpid(), ++runs)).string();
        TraceOptions options;
        options.preSoftmax = true;
        try {
            run->recorder = std::make_unique<TraceRecorder>(run->tracePath, *model_,
                                                            TraceRunInfo{settings_.prompt, settings_.maxTokens, settings_.sampling, false, settings_.whatIf},
                                                            options, run->lens.get());
            engine.addObserver(run->recorder.get());
        } catch (const std::exception& e) {
            run->tracePath.clear();  // the run goes on unrecorded; Save trace says why
            std::lock_guard lock(mutex_);
            recordError_ = e.what();
        }
    }
    if (settings_.keepStepLogits || settings_.whatIf.noKvCache) {
        run->stepLogits = std::make_unique<StepLogits>();
        engine.addObserver(run->stepLogits.get());
    }
    engine.addObserver(&run->controller);
}

void EngineSession::start(const RunSettings& settings, StepController::Mode initial, bool honourBreakpoints) {
    stop();
    std::lock_guard lock(mutex_);
    if (!model_) {
        state_ = SessionState::Failed;
        message_ = "no model is loaded";
        return;
    }
    settings_ = trace_ ? recordedSettings(settings, *trace_) : settings;
    // The system box belongs to chat mode (the Controls panel shows it only there); a completion
    // prompt would read its text as a prefix (--system without --chat), so it is left out.
    if (settings_.mode == PromptMode::Completion) settings_.system.clear();
    auto run = std::make_shared<Run>(settings_, initial, engine_ && settings_.lens ? &engine_->transformer() : nullptr);
    run_ = run;
    run->capture->wantLens(lensWanted_);
    runTarget_.reset();
    applyBreakpoints(honourBreakpoints);
    run->controller.setPauseListener([this](const StageEvent& e) {
        std::lock_guard l(mutex_);
        held_ = HeldAt{e.stage, e.layer, e.step};
        ++holds_;
        if (runTarget_ && runTarget_->matches(e)) {
            runTarget_.reset();
            applyBreakpoints(true);  // the controller's lock is not held while it calls us
        }
    });
    if (engine_) {
        // A new live run replaces the last one's trace; a replay (of that trace, compared) keeps it.
        forgetRecordedTrace();
        recordError_.clear();
        runLogits_.reset();
        // No run is in progress (stop joined it), so the facade is the UI thread's to set up; its
        // observers are the worker's (attachObservers).
        engine_->settings() = settings_;
    }
    state_ = SessionState::Running;
    message_.clear();
    held_.reset();
    runSeconds_.reset();
    worker_ = std::thread([this, run, engine = engine_, trace = trace_, started = std::chrono::steady_clock::now()] {
        yieldToTheUi();
        if (engine) attachObservers(*engine, run.get());
        std::string outcome;
        bool failed = false;
        try {
            if (trace) {
                outcome = "replayed the trace; the recorded run stopped by: " + replayTrace(*trace, *run->capture, run->controller);
            } else {
                GenerationResult r = engine->run([&](const std::string& piece) { run->capture->appendText(piece); });
                outcome = fmt::format("{} prompt tokens, {} generated, stopped by: {}", r.promptTokens.size(), r.generatedTokens.size(),
                                      describe(r.stopReason));
                if (run->recorder) {
                    run->recorder->finish(r);
                    std::lock_guard l(mutex_);
                    recordedTrace_ = run->tracePath;
                }
                if (run->stepLogits) {
                    auto kept = std::make_shared<const RunLogits>(RunLogits{run->stepLogits->logits(), r.generatedTokens});
                    std::lock_guard l(mutex_);
                    runLogits_ = std::move(kept);
                }
            }
        } catch (const GenerationStopped&) {
            outcome = "stopped";
        } catch (const std::exception& e) {
            outcome = e.what();
            failed = true;
        }
        std::lock_guard l(mutex_);
        state_ = failed ? SessionState::Failed : SessionState::Finished;
        message_ = outcome_ = outcome;
        held_.reset();
        runSeconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    });
}

void EngineSession::restart() { start(settings_, StepController::Mode::Stage, true); }

void EngineSession::command(void (StepController::*fn)()) {
    std::shared_ptr<Run> run;
    {
        std::lock_guard lock(mutex_);
        if (state_ == SessionState::Finished) {
            message_ = fmt::format("{} ({})", kRunFinishedNotice, outcome_);
            return;
        }
        run = run_;
        held_.reset();
    }
    if (run) (run->controller.*fn)();
}

void EngineSession::step() { command(&StepController::step); }
void EngineSession::nextLayer() { command(&StepController::nextLayer); }
void EngineSession::nextToken() { command(&StepController::nextToken); }
void EngineSession::pause() {
    std::lock_guard lock(mutex_);
    if (run_) run_->controller.pause();
}

void EngineSession::continueRun() {
    {
        std::lock_guard lock(mutex_);
        applyBreakpoints(true);
    }
    command(&StepController::continueRun);
}

void EngineSession::runTo(const Breakpoint& target) {
    {
        std::lock_guard lock(mutex_);
        if (!run_ || state_ != SessionState::Running) return;
        runTarget_ = target;
        applyBreakpoints(true);
    }
    command(&StepController::continueRun);
}

void EngineSession::runFree() {
    {
        std::lock_guard lock(mutex_);
        runTarget_.reset();
        applyBreakpoints(false);
    }
    command(&StepController::continueRun);
}

void EngineSession::stop() {
    std::shared_ptr<Run> run;
    std::shared_ptr<Session> engine;
    {
        std::lock_guard lock(mutex_);
        run = run_;
        engine = engine_;
    }
    if (run) run->controller.stop();  // releases a held engine
    if (engine) engine->requestStop();  // and ends one that is computing at its next stage boundary
    join();
}

void EngineSession::applyBreakpoints(bool honour) {
    if (!run_) return;
    run_->controller.clearBreakpoints();
    if (honour)
        for (const auto& b : breakpoints_) run_->controller.addBreakpoint(b);
    if (runTarget_) run_->controller.addBreakpoint(*runTarget_);
}

void EngineSession::setBreakpoints(std::vector<Breakpoint> breakpoints) {
    std::lock_guard lock(mutex_);
    const int layers = model_ ? model_->args.n_layers : 0;
    for (const Breakpoint& b : breakpoints)
        if (b.layer && layers && *b.layer >= layers)
            throw std::invalid_argument(fmt::format("no {}: this model has layers 1 to {}", layerLabel(*b.layer), layers));
    breakpoints_ = std::move(breakpoints);
    applyBreakpoints(true);
}

SessionStatus EngineSession::status() const {
    std::lock_guard lock(mutex_);
    SessionStatus s{state_, message_, held_, loading_, holds_, runSeconds_};
    if (state_ == SessionState::Running && run_ && run_->controller.isPaused()) s.state = SessionState::Paused;
    if (s.state != SessionState::Paused) s.held.reset();
    return s;
}

RunSettings EngineSession::settings() const {
    std::lock_guard lock(mutex_);
    return settings_;
}

std::shared_ptr<const Model> EngineSession::model() const {
    std::lock_guard lock(mutex_);
    return model_;
}

std::shared_ptr<const TraceRun> EngineSession::trace() const {
    std::lock_guard lock(mutex_);
    return trace_;
}

bool EngineSession::isReplay() const {
    std::lock_guard lock(mutex_);
    return trace_ != nullptr;
}

void EngineSession::loadPatchTrace(const ViewerSource& source) {
    PatchTrace t = readPatchTrace(source.trace);
    auto clean = std::make_shared<const TraceRun>(std::move(t.clean));
    auto model = std::make_shared<Model>(traceModel(*clean, source.trace));
    auto comparison = compareRuns(clean, displayPath(source.trace) + " (clean)", std::move(t.corrupt), displayPath(source.trace) + " (corrupted)");
    std::lock_guard lock(mutex_);
    trace_ = std::move(clean);
    settings_ = recordedSettings(settings_, *trace_);
    comparison_ = std::move(comparison);
    patch_ = std::make_shared<const PatchGrid>(std::move(t.grid));
    model_ = std::move(model);
    state_ = SessionState::Ready;
    message_ = fmt::format("loaded {}: activation patching, the clean run ({} stages) beside the corrupted one", source.describe(),
                           trace_->stages.size());
}

std::shared_ptr<const PatchGrid> EngineSession::patchGrid() const {
    std::lock_guard lock(mutex_);
    return patch_;
}

std::shared_ptr<const TraceComparison> EngineSession::comparison() const {
    std::lock_guard lock(mutex_);
    return comparison_;
}

void EngineSession::wantLens(bool want) {
    std::lock_guard lock(mutex_);
    lensWanted_ = want;
    if (run_) run_->capture->wantLens(want);
}

bool EngineSession::computeLens(int step) {
    std::lock_guard lock(mutex_);
    return run_ && run_->capture->computeLens(step);
}

std::shared_ptr<const CaptureObserver> EngineSession::capture() const {
    std::lock_guard lock(mutex_);
    return run_ ? run_->capture : nullptr;
}

bool EngineSession::waitUntilSettled(std::chrono::milliseconds timeout) const {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        SessionStatus s = status();
        bool settled = s.state == SessionState::Ready || s.state == SessionState::Finished || s.state == SessionState::Failed ||
                       (s.state == SessionState::Paused && s.held);
        if (settled) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
}

}  // namespace llama::viewer
