#include "script_runner.h"

#include <fmt/format.h>

#include <cstdio>

#include "state/tensor_export.h"
#include "viewer_app.h"

namespace llama::viewer {

namespace {
constexpr auto kEngineTimeout = std::chrono::minutes(10);
constexpr int kSettleFrames = 3;  // ImGui lays out a newly selected tab or window on the next frame

int toInt(const std::string& s, const ScriptCommand& c) {
    try {
        return std::stoi(s);
    } catch (const std::exception&) {
        throw std::invalid_argument(fmt::format("line {}: '{}' is not a whole number", c.line, s));
    }
}

float toFloat(const std::string& s, const ScriptCommand& c) {
    try {
        return std::stof(s);
    } catch (const std::exception&) {
        throw std::invalid_argument(fmt::format("line {}: '{}' is not a number", c.line, s));
    }
}

bool matches(const Breakpoint& b, const HeldAt& h) {
    return b.stage == h.stage && (!b.layer || *b.layer == h.layer) && (!b.step || *b.step == h.step);
}

// The captured tensor the heatmap shows, and its slice (as the heatmap panel chose it).
const CapturedTensor* heatmapTensor(ViewerApp& app) {
    const StageRecord* r = app.currentRecord();
    if (!r || r->tensors.empty()) return nullptr;
    const CapturedTensor* t = r->find(app.view().tensorName);
    return t ? t : &r->tensors[0];
}
}  // namespace

void ScriptRunner::fail(ViewerApp& app, const std::string& message) {
    std::fprintf(stderr, "script error: %s\n", message.c_str());
    app.requestQuit(1);
    next_ = commands_.size();
    wait_ = Wait::None;
}

bool ScriptRunner::waitDone(ViewerApp& app) {
    SessionStatus s = app.session().status();
    auto now = std::chrono::steady_clock::now();
    bool engineWait = wait_ == Wait::Loaded || wait_ == Wait::Settled || wait_ == Wait::Finished || wait_ == Wait::StepTo;
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
                if (matches(*stepTarget_, *s.held)) {
                    app.session().setBreakpoints(userBreakpoints_);
                    return true;
                }
                app.session().continueRun();  // held at one of the learner's own breakpoints: go on
            }
            if (s.state == SessionState::Finished || s.state == SessionState::Failed)
                fail(app, fmt::format("line {}: the run ended before reaching that stage ({})", commands_[next_ - 1].line, s.message));
            return false;
        case Wait::Frames:
            if (--frames_ > 0) return false;
            if (!pendingScreenshot_.empty()) {
                app.requestCapture(pendingScreenshot_, pendingPanelOnly_);
                pendingScreenshot_.clear();
                frames_ = 1;  // the capture happens after this frame renders
                return false;
            }
            return true;
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
    const std::string& n = c.name;
    const auto& a = c.args;
    RunSettings& s = app.settings();
    ViewState& v = app.view();
    waitStart_ = std::chrono::steady_clock::now();
    auto settle = [&](Wait w) { wait_ = w; };
    auto frames = [&](int count) { wait_ = Wait::Frames, frames_ = count; };

    if (n == "load") {
        ViewerSource src = app.options().source;
        if (!a.empty()) {
            if (a.size() != 2 || (a[0] != "model" && a[0] != "synthetic" && a[0] != "trace"))
                throw std::invalid_argument("load [model PATH | synthetic PRESET | trace FILE]");
            src.trace = a[0] == "trace" ? a[1] : "";
            if (a[0] != "trace") src.model = {a[0] == "synthetic" ? ModelSource::Kind::Synthetic : ModelSource::Kind::Files, a[1], src.model.seed};
        }
        app.load(src);
        settle(Wait::Loaded);
    } else if (n == "mode") {
        if (a[0] != "chat" && a[0] != "completion") throw std::invalid_argument("mode chat | completion");
        s.mode = a[0] == "chat" ? PromptMode::Chat : PromptMode::Completion;
    } else if (n == "system") {
        s.system = a[0];
    } else if (n == "prompt") {
        s.prompt = a[0];
    } else if (n == "max-tokens") {
        s.maxTokens = toInt(a[0], c);
    } else if (n == "temperature") {
        s.sampling.temperature = toFloat(a[0], c);
    } else if (n == "top-k") {
        s.sampling.topK = toInt(a[0], c);
    } else if (n == "top-p") {
        s.sampling.topP = toFloat(a[0], c);
    } else if (n == "seed") {
        s.sampling.seed = uint64_t(toInt(a[0], c));
    } else if (n == "start") {
        app.session().start(s, StepController::Mode::Stage, true);
        settle(Wait::Settled);
    } else if (n == "step" || n == "step-layer" || n == "step-token" || n == "continue" || n == "restart") {
        app.perform(n == "step" ? Action::Step : n == "step-layer" ? Action::StepLayer : n == "step-token" ? Action::StepToken
                    : n == "continue" ? Action::Continue : Action::Restart);
        settle(Wait::Settled);
    } else if (n == "run" || n == "run-background") {
        app.perform(Action::Run);
        if (n == "run") settle(Wait::Finished);
    } else if (n == "stop") {
        app.perform(Action::Stop);
    } else if (n == "step-to" || n == "breakpoint") {
        const StageInfo* info = findStage(a[0]);
        if (!info) throw std::invalid_argument("no stage '" + a[0] + "' (use the catalog's keys, e.g. scores_softmax)");
        Breakpoint b{info->id, std::nullopt, std::nullopt};
        if (a.size() > 1) b.layer = toInt(a[1], c);
        if (a.size() > 2) b.step = toInt(a[2], c);
        if (n == "breakpoint") {
            auto all = app.session().breakpoints();
            all.push_back(b);
            app.session().setBreakpoints(all);
            return;
        }
        SessionStatus st = app.session().status();
        if (st.held && matches(b, *st.held)) return;
        userBreakpoints_ = app.session().breakpoints();
        stepTarget_ = b;
        auto withTarget = userBreakpoints_;
        withTarget.push_back(b);
        app.session().setBreakpoints(withTarget);
        if (st.state == SessionState::Running || st.state == SessionState::Paused) app.session().continueRun();
        else app.session().start(s, StepController::Mode::Continue, true);
        settle(Wait::StepTo);
    } else if (n == "panel") {
        auto p = panelFromKey(a[0]);
        if (!p) throw std::invalid_argument("no panel '" + a[0] + "'");
        app.showPanel(*p);
        frames(kSettleFrames);
    } else if (n == "layer") {
        v.attentionLayer = toInt(a[0], c);
    } else if (n == "head") {
        v.head = toInt(a[0], c);
        v.cell.reset();
    } else if (n == "cell") {
        v.cell = AttentionCell{toInt(a[0], c), toInt(a[1], c)};
    } else if (n == "scores") {
        if (a[0] != "softmax" && a[0] != "masked") throw std::invalid_argument("scores softmax | masked");
        v.showMaskedScores = a[0] == "masked";
    } else if (n == "select") {
        v.selectedRecord = toInt(a[0], c);
    } else if (n == "tensor") {
        v.tensorName = a[0];
    } else if (n == "scale") {
        app.requestedUiScale() = std::clamp(toFloat(a[0], c), kMinUiScale, kMaxUiScale);
        frames(kSettleFrames);
    } else if (n == "frames") {
        frames(std::max(1, toInt(a[0], c)));
    } else if (n == "measure-fps") {
        SessionStatus st = app.session().status();
        fpsWhere_ = st.held ? fmt::format("paused at {}", stageInfo(st.held->stage).key) : stateName(st.state);
        fpsFrames_ = 0;
        fpsEnd_ = waitStart_ + std::chrono::milliseconds(int(toFloat(a[0], c) * 1000));
        wait_ = Wait::Fps;
    } else if (n == "screenshot" || n == "export-png") {
        pendingScreenshot_ = a[0];
        pendingPanelOnly_ = n == "export-png";
        frames(kSettleFrames);
    } else if (n == "export-csv" || n == "export-npy") {
        const CapturedTensor* t = heatmapTensor(app);
        if (!t || !t->data) throw std::invalid_argument("the current stage has no tensor data to export");
        if (n == "export-npy") writeNpy(a[0], *t->data);
        else writeCsv(a[0], extractSlice(*t->data, v.sliceFor.empty() ? defaultSlice(*t->data) : v.slice));
    } else if (n == "print") {
        std::printf("%s\n", a[0].c_str());
        std::fflush(stdout);
    } else if (n == "quit") {
        app.requestQuit(0);
    }
}

}  // namespace llama::viewer
