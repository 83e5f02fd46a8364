#include "script_runner.h"

#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "panels/panels.h"
#include "state/chapter_reader.h"
#include "state/panel_labels.h"
#include "state/script_facts.h"
#include "state/script_state_commands.h"
#include "state/tensor_export.h"
#include "viewer_app.h"

namespace llama::viewer {

namespace {
constexpr auto kEngineTimeout = std::chrono::minutes(10);
constexpr int kSettleFrames = 3;  // ImGui lays out a newly selected tab or window on the next frame

// The captured tensor the heatmap shows.
const CapturedTensor& heatmapTensor(ViewerApp& app) {
    const StageRecord* r = app.currentRecord();
    const CapturedTensor* t = nullptr;
    if (r && !r->tensors.empty()) {
        t = r->find(app.view().tensorName);
        if (!t) t = &r->tensors[0];
    }
    if (!t || !t->data) throw std::invalid_argument("the current stage has no tensor data to export");
    return *t;
}

// An export's path: the script's, or for "-" the name the panel's Export button gives (numbered
// when taken).
std::string exportTarget(ViewerApp& app, const std::string& arg, const std::string& what, const char* extension) {
    return arg == "-" ? exportFileName(app.view(), app.currentRecord(), what, extension) : arg;
}

// A CSV or .npy export written by a script: said on screen as the buttons' are.
void noteSaved(ViewerApp& app, const std::string& path) {
    app.view().exportNote = savedNote(path);
    app.view().exportNoteTime = ImGui::GetTime();
    app.view().lastSaved = path;
}

// A fact as the panels would show it on the next frame (`expect`, `print-fact`).
std::string currentFact(ViewerApp& app, const std::string& name) {
    HistorySnapshot snap;  // fresh: what the panels draw on the next frame
    if (auto capture = app.session().capture()) capture->snapshot(snap);
    const auto model = app.session().model();
    const auto comparison = app.session().comparison();
    const auto trace = app.session().trace();
    const auto patch = app.session().patchGrid();
    app.view().saveTraceReason = app.saveTraceReason();  // what the File menu would say now
    return scriptFact(name, snap, app.view(), app.session().status(), model ? model->args.n_layers : 0, comparison.get(), trace.get(),
                      patch.get());
}

}  // namespace

ScriptRunner::ScriptRunner(std::vector<ScriptCommand> commands) : commands_(std::move(commands)) {
    // The parser accepts exactly the commands of scriptCommands(): each needs a handler here or in
    // state/script_state_commands.h.
    size_t handled = 0;
    for (const ScriptCommandInfo& info : scriptCommands()) {
        if (handlers().count(info.name) + isStateCommand(info.name) != 1)
            throw std::logic_error(fmt::format("script command '{}' has no handler, or two", info.name));
        handled += handlers().count(info.name);
    }
    if (handled != handlers().size()) throw std::logic_error("a script handler has no command in scriptCommands()");
}

void ScriptRunner::fail(ViewerApp& app, const std::string& message) {
    std::fprintf(stderr, "script error: %s\n", message.c_str());
    app.requestQuit(1);
    next_ = commands_.size();
    wait_ = Wait::None;
}

bool ScriptRunner::waitDone(ViewerApp& app) {
    SessionStatus s = app.session().status();
    auto now = std::chrono::steady_clock::now();
    bool engineWait = wait_ == Wait::Loaded || wait_ == Wait::Settled || wait_ == Wait::Finished || wait_ == Wait::StepTo || wait_ == Wait::Keys || wait_ == Wait::Resumed;
    if (engineWait && now - waitStart_ > kEngineTimeout) {
        fail(app, fmt::format("line {}: the engine did not get there in time", commands_[next_ - 1].line));
        return false;
    }
    switch (wait_) {
        case Wait::None: return true;
        case Wait::Loaded:
            if (s.state == SessionState::Failed) fail(app, "loading failed: " + s.message);
            return s.state == SessionState::Ready;
        case Wait::Settled:
            if (s.state == SessionState::Failed) fail(app, "the run failed: " + s.message);
            return s.state == SessionState::Finished || s.state == SessionState::Ready || (s.state == SessionState::Paused && s.held);
        case Wait::Finished:
            if (s.state == SessionState::Failed) fail(app, "the run failed: " + s.message);
            return s.state == SessionState::Finished;
        case Wait::StepTo:
            if (s.state == SessionState::Paused && s.held) {
                if (breakpointMatches(*stepTarget_, *s.held)) {
                    app.session().setBreakpoints(userBreakpoints_);
                    return true;
                }
                app.session().continueRun();  // held at one of the learner's own breakpoints: go on
            }
            if (s.state == SessionState::Finished || s.state == SessionState::Failed)
                fail(app, fmt::format("line {}: the run ended before reaching that stage ({})", commands_[next_ - 1].line, s.message));
            return false;
        case Wait::Resumed:
            if (s.state == SessionState::Failed) fail(app, "the comparison failed: " + s.message);
            return !app.resuming() && s.state != SessionState::Loading;
        case Wait::Keys:
            if (s.state == SessionState::Failed) fail(app, "the run failed: " + s.message);
            return app.keysSettled(s) &&
                   (s.state == SessionState::Finished || s.state == SessionState::Ready || (s.state == SessionState::Paused && s.held));
        case Wait::Frames:
            if (--frames_ > 0) return false;
            if (!pendingScreenshot_.empty()) {
                const ScriptCommand& asking = commands_[next_ - 1];
                // "-": the name the panel's button gives, made now that the panels show the stage.
                if (pendingScreenshot_ == "-")
                    pendingScreenshot_ = exportFileName(app.view(), app.currentRecord(),
                                                        (pendingKind_ == CaptureKind::Slide ? "slide-" : "") + std::string(panelKey(app.view().panel)), "png");
                app.requestCapture(pendingScreenshot_, pendingKind_, fmt::format("line {} ({})", asking.line, asking.name));
                pendingScreenshot_.clear();
                frames_ = 1;  // the capture happens after this frame renders
                return false;
            }
            return true;
        case Wait::Pressed:
            // The button acted in a frame drawn since (then one more frame shows what it did), or no
            // frame drew it.
            if (app.view().pressRequested.empty()) {
                wait_ = Wait::Settled;  // and what the button started in the engine got where it leads
                waitStart_ = now;
                return false;
            }
            if (--frames_ > 0) return false;
            fail(app, fmt::format("line {}: no button \"{}\" was drawn", commands_[next_ - 1].line, app.view().pressRequested));
            app.view().pressRequested.clear();
            return false;
        case Wait::Fps:
            fpsFrames_++;
            if (now < fpsEnd_) return false;
            {
                double seconds = std::chrono::duration<double>(now - waitStart_).count();
                SessionStatus end = app.session().status();
                std::printf("measure-fps: %.1f fps (%d frames in %.2f s); engine at start: %s; at end: %s\n", fpsFrames_ / seconds,
                            fpsFrames_, seconds, fpsWhere_.c_str(), stateName(end.state));
                std::fflush(stdout);
            }
            return true;
    }
    return true;
}

void ScriptRunner::update(ViewerApp& app) {
    while (true) {
        if (wait_ != Wait::None) {
            if (!waitDone(app)) return;
            wait_ = Wait::None;
        }
        if (next_ >= commands_.size() || app.quitRequested()) return;
        const ScriptCommand& c = commands_[next_++];
        try {
            execute(app, c);
        } catch (const std::exception& e) {
            fail(app, fmt::format("line {} ({}): {}", c.line, c.name, e.what()));
            return;
        }
    }
}

void ScriptRunner::execute(ViewerApp& app, const ScriptCommand& c) {
    waitStart_ = std::chrono::steady_clock::now();
    // A command that runs the model before anything was loaded: the command line's model first
    // (as `load` does), then this line again.
    static const std::set<std::string_view> runsTheModel = {"start", "step", "step-layer", "step-token", "tap", "continue", "restart",
                                                            "run", "run-background", "step-to"};
    if (runsTheModel.count(c.name) && app.session().status().state == SessionState::Empty) {
        app.load(app.options().source);
        wait_ = Wait::Loaded;
        --next_;
        return;
    }
    if (isStateCommand(c.name)) applyStateCommand(c, app.settings(), app.view());
    else handlers().at(c.name)(*this, app, c);
}

void ScriptRunner::waitFrames(int count) {
    wait_ = Wait::Frames;
    frames_ = count;
}

const std::unordered_map<std::string_view, ScriptRunner::Handler>& ScriptRunner::handlers() {
    // Every handler is given (runner, app, command); being defined in a member, it may set the
    // runner's waits.
    using R = ScriptRunner;
    using A = ViewerApp;
    using C = ScriptCommand;
    static const std::unordered_map<std::string_view, Handler> table = {
        {"load", [](R& r, A& app, const C& c) {
             const auto& a = c.args;
             ViewerSource src = app.options().source;
             if (!a.empty()) {
                 if (a.size() != 2 || (a[0] != "model" && a[0] != "synthetic" && a[0] != "trace"))
                     throw std::invalid_argument("load [model PATH | synthetic PRESET | trace FILE]");
                 src.trace = a[0] == "trace" ? a[1] : "";
                 if (a[0] != "trace") src.model = {a[0] == "synthetic" ? ModelSource::Kind::Synthetic : ModelSource::Kind::Files, a[1], src.model.seed};
             }
             app.load(src);
             r.wait_ = Wait::Loaded;
         }},
        {"back-to-model", [](R& r, A& app, const C&) {
             app.backToModel();
             r.wait_ = Wait::Settled;
         }},
        {"start", [](R& r, A& app, const C&) {
             app.session().start(app.settings(), StepController::Mode::Stage, true);
             r.wait_ = Wait::Settled;
         }},
        {"step", [](R& r, A& app, const C&) { app.perform(Action::Step); r.wait_ = Wait::Settled; }},
        {"step-layer", [](R& r, A& app, const C&) { app.perform(Action::StepLayer); r.wait_ = Wait::Settled; }},
        {"step-token", [](R& r, A& app, const C&) { app.perform(Action::StepToken); r.wait_ = Wait::Settled; }},
        {"tap", [](R& r, A& app, const C& c) {
             const auto chord = keyChordFromName(c.args[0]);
             if (!chord) throw std::invalid_argument("no key '" + c.args[0] + "' (F5, F6, F8, F9, F10, F11, F12, Right, Space, Enter, R, PageDown, with Ctrl+ or Shift+)");
             const int n = c.args.size() > 1 ? scriptInt(c.args[1], c, {1, 1000, "a count from 1 to 1000"}) : 1;
             for (int i = 0; i < n; ++i) app.tapKey(*chord);
             r.wait_ = Wait::Keys;
         }},
        {"continue", [](R& r, A& app, const C&) { app.perform(Action::Continue); r.wait_ = Wait::Settled; }},
        {"restart", [](R& r, A& app, const C&) { app.perform(Action::Restart); r.wait_ = Wait::Settled; }},
        {"run", [](R& r, A& app, const C&) { app.perform(Action::Run); r.wait_ = Wait::Finished; }},
        {"run-background", [](R&, A& app, const C&) { app.perform(Action::Run); }},
        {"stop", [](R&, A& app, const C&) { app.perform(Action::Stop); }},
        {"breakpoint", [](R&, A& app, const C& c) {
             const Breakpoint b = breakpointArgs(c);
             auto all = app.session().breakpoints();
             all.push_back(b);
             app.session().setBreakpoints(all);
         }},
        {"step-to", [](R& r, A& app, const C& c) {
             const Breakpoint b = breakpointArgs(c);
             SessionStatus st = app.session().status();
             if (st.held && breakpointMatches(b, *st.held)) return;
             r.userBreakpoints_ = app.session().breakpoints();
             r.stepTarget_ = b;
             auto withTarget = r.userBreakpoints_;
             withTarget.push_back(b);
             app.session().setBreakpoints(withTarget);
             if (st.state == SessionState::Running || st.state == SessionState::Paused) app.session().continueRun();
             else app.session().start(app.settings(), StepController::Mode::Continue, true);
             r.wait_ = Wait::StepTo;
         }},
        {"panel", [](R& r, A& app, const C& c) {
             auto p = panelFromKey(c.args[0]);
             if (!p) throw std::invalid_argument("no panel '" + c.args[0] + "'");
             app.showPanel(*p);
             r.waitFrames(kSettleFrames);
         }},
        {"chapter", [](R& r, A& app, const C& c) {
             if (!app.view().chapter.followLink(c.args[0]))
                 throw std::invalid_argument("the Chapter panel cannot open '" + c.args[0] + "' (a file in chapters/, after `panel chapter`)");
             r.waitFrames(kSettleFrames);
         }},
        {"chapter-check", [](R& r, A& app, const C& c) {
             ChapterReader& reader = app.view().chapter;
             const int n = scriptInt(c.args[0], c, kScriptIndex);
             if (n < 1 || n > int(reader.document().checks.size()))
                 throw std::invalid_argument(fmt::format("the chapter shown has {} checks", reader.document().checks.size()));
             if (!reader.checkOpen(n - 1)) reader.toggleCheck(n - 1);
             r.waitFrames(kSettleFrames);
         }},
        {"scale", [](R& r, A& app, const C& c) {
             app.requestedUiScale() =
                 scriptFloat(c.args[0], c, {kMinUiScale, kMaxUiScale, false, fmt::format("a UI scale from {} to {}", kMinUiScale, kMaxUiScale)});
             r.waitFrames(kSettleFrames);
         }},
        {"frames", [](R& r, A&, const C& c) { r.waitFrames(scriptInt(c.args[0], c, {1, 100000, "a frame count from 1 to 100000"})); }},
        {"measure-fps", [](R& r, A& app, const C& c) {
             SessionStatus st = app.session().status();
             r.fpsWhere_ = st.held ? fmt::format("paused at {}", stageInfo(st.held->stage).key) : stateName(st.state);
             r.fpsFrames_ = 0;
             r.fpsEnd_ = r.waitStart_ + std::chrono::milliseconds(int(scriptFloat(c.args[0], c, {0, 3600, true, "a number of seconds above 0 and at most 3600"}) * 1000));
             r.wait_ = Wait::Fps;
         }},
        {"screenshot", [](R& r, A&, const C& c) {
             r.pendingScreenshot_ = c.args[0];
             r.pendingKind_ = CaptureKind::Window;
             r.waitFrames(kSettleFrames);
         }},
        {"export-png", [](R& r, A&, const C& c) {
             r.pendingScreenshot_ = c.args[0];
             r.pendingKind_ = CaptureKind::Panel;
             r.waitFrames(kSettleFrames);
         }},
        {"export-slide", [](R& r, A&, const C& c) {
             r.pendingScreenshot_ = c.args[0];
             r.pendingKind_ = CaptureKind::Slide;
             r.waitFrames(kSettleFrames);
         }},
        {"export-csv", [](R&, A& app, const C& c) {
             const CapturedTensor& t = heatmapTensor(app);
             const ViewState& v = app.view();
             const std::string path = exportTarget(app, c.args[0], t.name, "csv");
             writeCsv(path, extractSlice(*t.data, v.sliceFor.empty() ? defaultSlice(*t.data) : v.slice));
             noteSaved(app, path);
         }},
        {"export-npy", [](R&, A& app, const C& c) {
             const CapturedTensor& t = heatmapTensor(app);
             const std::string path = exportTarget(app, c.args[0], t.name, "npy");
             writeNpy(path, *t.data);
             noteSaved(app, path);
         }},
        {"press", [](R& r, A& app, const C& c) {
             app.view().pressRequested = c.args[0];
             r.wait_ = Wait::Pressed;
             r.frames_ = kSettleFrames;
         }},
        {"print", [](R&, A&, const C& c) {
             std::printf("%s\n", c.args[0].c_str());
             std::fflush(stdout);
         }},
        {"print-fact", [](R&, A& app, const C& c) {
             std::printf("%s %s\n", c.args[0].c_str(), currentFact(app, c.args[0]).c_str());
             std::fflush(stdout);
         }},
        {"expect", [](R&, A& app, const C& c) {
             const std::string actual = currentFact(app, c.args[0]);
             if (actual != c.args[1]) throw std::invalid_argument(fmt::format("expected {} {}, but it is {}", c.args[0], c.args[1], actual));
         }},
        {"save-trace", [](R&, A& app, const C& c) { app.saveTrace(c.args[0]); }},
        {"patch-cell", [](R& r, A& app, const C& c) {
             const auto grid = app.session().patchGrid();
             const auto cmp = app.session().comparison();
             if (!grid || !cmp) throw std::invalid_argument("patch-cell: no patch trace is loaded (llama-walkthrough patch ... --trace FILE)");
             const int layer = scriptInt(c.args[0], c, {1, grid->layers, fmt::format("a layer from 1 to {}", grid->layers)});
             const int column = scriptInt(c.args[1], c, {1, grid->columns, fmt::format("a column from 1 to {}", grid->columns)});
             selectPatchCell(app.view(), *grid, *cmp->a, PatchCell{layer - 1, column - 1});
             r.waitFrames(kSettleFrames);
         }},
        {"compare-trace", [](R& r, A& app, const C& c) {
             app.compareWith(c.args[0]);
             r.wait_ = Wait::Resumed;
         }},
        {"kv-cache-check", [](R& r, A& app, const C&) {
             app.checkKvCache();
             r.wait_ = Wait::Resumed;
         }},
        {"quit", [](R&, A& app, const C&) { app.requestQuit(0); }},
    };
    return table;
}

}  // namespace llama::viewer
