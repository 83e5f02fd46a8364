// Viewer scripts (--script FILE) run against the viewer's state without a window: a trace of the
// tiny model is loaded once; a script's settings, what-if and view commands are applied as the
// viewer applies them (state/script_state_commands.h), its engine commands drive the trace's
// replay (start, steps, breakpoints, step-to, run, stop), and after each command the state is
// read as the panels read it (the shown record, its tensor's slice, the what-if checked against
// the model). Commands that draw, capture, write files or load are passed over. A script stops at
// its first error, as the viewer's does; only a std::exception with a message may end it.
#include <time.h>

#include <chrono>
#include <string>
#include <thread>

#include "fuzz_input.h"
#include "state/engine_session.h"
#include "state/script.h"
#include "state/script_state_commands.h"
#include "state/tensor_slice.h"

namespace {

using namespace llama::viewer;
using llama::Breakpoint;
using StepMode = llama::StepController::Mode;

EngineSession& session() {
    // Kept for the whole process (libFuzzer exits without running static destructors).
    static EngineSession* s = [] {
        auto* loaded = new EngineSession;
        loaded->load({{}, LLAMA_SOURCE_DIR "/tests/fuzz/corpus/trace/tiny.trace"});
        while (loaded->status().state == SessionState::Loading) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (loaded->status().state != SessionState::Ready) {
            std::fprintf(stderr, "the seed trace did not load: %s\n", loaded->status().message.c_str());
            std::abort();
        }
        return loaded;
    }();
    return *s;
}

// This thread's CPU time. The wait below spins, so this counts the time spent waiting, but not
// the time the process was stopped (SIGSTOP, a debugger) or given no CPU: a wall clock counts
// those as a hang of the replay.
double waitingSeconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// Held, finished or failed; polled closely (EngineSession::waitUntilSettled sleeps 5 ms a turn).
SessionStatus settle() {
    const double deadline = waitingSeconds() + 5;
    while (true) {
        SessionStatus s = session().status();
        if (s.state == SessionState::Ready || s.state == SessionState::Finished || s.state == SessionState::Failed ||
            (s.state == SessionState::Paused && s.held))
            return s;
        if (waitingSeconds() > deadline) {
            std::fprintf(stderr, "the replay did not settle within 5 s of waiting (state %s)\n", stateName(s.state));
            std::abort();
        }
        std::this_thread::yield();
    }
}

bool active(const SessionStatus& s) { return s.state == SessionState::Running || s.state == SessionState::Paused; }

// What the panels read: the record shown (the selected one when it exists, else the latest),
// its tensor by name (else its first) as a 2-D slice, and the experiment against the model.
void readState(const RunSettings& settings, const ViewState& view) {
    auto capture = session().capture();
    if (capture) {
        HistorySnapshot snap;
        capture->snapshot(snap);
        if (!snap.records.empty()) {
            const int n = int(snap.records.size());
            const StageRecord& r = *snap.records[size_t(view.selectedRecord >= 0 && view.selectedRecord < n ? view.selectedRecord : n - 1)];
            const CapturedTensor* t = r.find(view.tensorName);
            if (!t && !r.tensors.empty()) t = &r.tensors[0];
            if (t && t->data) (void)extractSlice(*t->data, defaultSlice(*t->data));
        }
    }
    const auto model = session().model();
    settings.whatIf.validate(model->args.n_layers, model->args.n_heads);
}

void run(const ScriptCommand& c, RunSettings& settings, ViewState& view, std::vector<Breakpoint>& breakpoints) {
    EngineSession& s = session();
    const std::string& n = c.name;
    if (isStateCommand(n)) {
        applyStateCommand(c, settings, view);
    } else if (n == "breakpoint") {
        breakpoints.push_back(breakpointArgs(c));
        s.setBreakpoints(breakpoints);
    } else if (n == "start" || n == "restart") {
        s.start(settings, StepMode::Stage, true);
        settle();
    } else if (n == "step" || n == "step-layer" || n == "step-token") {
        const SessionStatus st = s.status();
        if (!active(st) && st.state != SessionState::Finished) s.start(settings, StepMode::Stage, true);
        else if (n == "step") s.step();
        else if (n == "step-layer") s.nextLayer();
        else s.nextToken();
        settle();
    } else if (n == "continue") {
        const SessionStatus st = s.status();
        if (active(st) || st.state == SessionState::Finished) s.continueRun();
        else s.start(settings, StepMode::Continue, true);
        settle();
    } else if (n == "run" || n == "run-background") {
        if (active(s.status())) s.runFree();
        else s.start(settings, StepMode::Continue, false);
        settle();
    } else if (n == "stop") {
        s.stop();
    } else if (n == "step-to") {
        const Breakpoint target = breakpointArgs(c);
        SessionStatus st = s.status();
        if (st.held && breakpointMatches(target, *st.held)) return;
        auto withTarget = breakpoints;
        withTarget.push_back(target);
        s.setBreakpoints(withTarget);
        if (active(st)) s.continueRun();
        else s.start(settings, StepMode::Continue, true);
        // Held at one of the script's own breakpoints: go on, as the viewer does.
        for (st = settle(); st.state == SessionState::Paused && st.held && !breakpointMatches(target, *st.held); st = settle()) s.continueRun();
        s.setBreakpoints(breakpoints);
        if (st.state != SessionState::Paused) throw std::invalid_argument("the run ended before reaching that stage");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<Breakpoint> breakpoints;
    session().stop();
    session().setBreakpoints({});
    RunSettings settings;
    ViewState view;
    return llama::fuzz::expectCleanErrors([&] {
        for (const ScriptCommand& c : parseScript(std::string(reinterpret_cast<const char*>(data), size), "fuzz.script")) {
            run(c, settings, view, breakpoints);
            readState(settings, view);
        }
    });
}
