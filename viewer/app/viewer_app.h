#pragma once
// The viewer's frame: a menu bar over a tiled layout (ImGui 1.86 has no docking; state/layout.h
// places the regions, splitters move them) of the run controls, the stage timeline, the panel
// tabs (the map first), the output and the log; keyboard shortcuts and their help overlay; the
// File > Open dialog; scripted walk-throughs; PNG captures, panel exports with a caption and
// 1920x1080 slides after rendering.
#include <chrono>
#include <deque>
#include <memory>
#include <string>

#include "state/engine_session.h"
#include "fonts.h"
#include "gl_textures.h"
#include "script_runner.h"
#include "state/dir_listing.h"
#include "state/layout.h"
#include "state/panel_caches.h"
#include "state/session_controls.h"
#include "state/view_state.h"
#include "state/viewer_command_line.h"

namespace llama::viewer {

struct PanelContext;

class ViewerApp {
public:
    explicit ViewerApp(AppOptions options);
    ~ViewerApp();

    // Before ImGui::NewFrame: applies a UI scale change (rebuilds the font) and runs the script.
    void beforeFrame();
    void drawFrame();
    // After rendering, before the swap: writes requested screenshots.
    void afterRender(int framebufferWidth, int framebufferHeight);
    bool quitRequested() const { return quit_; }
    int exitCode() const { return exitCode_; }

    // Used by the buttons, the shortcuts and the script runner.
    void perform(Action action);
    // A key press as GLFW reports it (main.cpp's key callback; the script runner's `tap`): queued,
    // so a tap shorter than a frame still counts.
    void keyPressed(int glfwKeyCode, bool ctrl, bool shift);
    void tapKey(const KeyChord& k) { keyPresses_.push_back(k); }
    // Every key press has acted and the engine has got where the last one led.
    bool keysSettled(const SessionStatus& s) const {
        return keyPresses_.empty() && actions_.settled(s.holds, s.state == SessionState::Running || s.state == SessionState::Paused);
    }
    void load(const ViewerSource& source);
    // File > Back to the model: from an opened trace to the live model it was opened over (its last
    // run kept, nothing read again), or else the command line's model, loaded.
    void backToModel();
    // File > Save trace: the last live run's trace to `path` ("-": a free llama-viewer-run.trace);
    // throws saying why there is none. Returns where it went.
    std::string saveTrace(const std::string& path);
    // File > Compare with trace: the run shown (a trace, or a live run's saved trace) beside `path`,
    // replayed to the stage shown now.
    void compareWith(const std::string& path);
    // Why Save trace (and Compare, for a live run) cannot be used now, or "" (state/session_controls.h).
    std::string saveTraceReason() const;
    bool resuming() const { return resumeAt_ >= 0 || !kvCheckWithout_.empty(); }
    // After a --no-kv-cache live run: the same run with the cache, then both in the Compare panel.
    void checkKvCache();
    void showPanel(Panel panel);
    // `origin`: the script line that asked for it ("line 12 (screenshot)"), named when writing fails.
    void requestCapture(const std::string& path, CaptureKind kind, std::string origin = {});
    // A slide is drawn at this size into an offscreen framebuffer (main.cpp), whatever the window.
    static constexpr int kSlideWidth = 1920, kSlideHeight = 1080;
    static constexpr float kSlideUiScale = 2.0f;  // a slide's text: 32 px, about 34 lines on 1080
    bool slidePending() const;
    void requestQuit(int exitCode) { quit_ = true, exitCode_ = exitCode; }
    EngineSession& session() { return session_; }
    const AppOptions& options() const { return options_; }
    ViewState& view() { return view_; }
    RunSettings& settings() { return settings_; }
    float& requestedUiScale() { return requestedScale_; }
    const StageRecord* currentRecord() const;
    bool computing() const { return session_.status().state == SessionState::Running; }
    float fps() const;

private:
    void handleShortcuts();
    void drawMenuBar(PanelContext& c);
    void drawPanelTabs(PanelContext& c);
    void drawRegions(PanelContext& c, LayoutRect area);
    void drawExport(PanelContext& c, bool slide);
    void drawHelpOverlay();
    void drawOpenDialog();
    std::string caption(const PanelContext& c) const;

    AppOptions options_;
    ViewerSource source_;  // the one loaded last
    ViewerSource modelSource_;  // the last model (not a trace) loaded: what Back to the model returns to
    EngineSession session_;
    ViewState view_;
    RunSettings settings_;
    FrameSnapshot frame_;
    TextureCache textures_;
    PanelCaches caches_;
    std::unique_ptr<ScriptRunner> script_;
    float appliedScale_ = 0, requestedScale_ = 1;
    LoadedFont font_;
    std::string fontNote_;
    bool panelChangeRequested_ = false;
    std::shared_ptr<const PatchGrid> patchShown_;  // the patch trace whose heatmap was last brought to the front
    int lastShown_ = -1;
    struct Capture {
        std::string path;
        CaptureKind kind;
        std::string origin;
        bool drawn = false;  // this frame was drawn for it
    };
    std::vector<Capture> captures_;
    float panelRect_[4] = {0, 0, 0, 0};  // the panel region, for panel PNGs
    LayoutState layout_;
    bool layoutTouched_ = false;  // a splitter moved or a region folded: keep the learner's layout
    bool helpOpen_ = false;
    OpenDialogState open_;  // File > Open trace / Compare trace
    std::vector<KeyChord> keyPresses_;  // since the last frame
    int resumeAt_ = -1;                 // after Compare: the record to show once the replay has it
    std::string kvCheckWithout_;        // the KV cache check: the run without it, saved, while the run with it goes
    std::shared_ptr<const RunLogits> kvCheckWithoutLogits_;  // and its logits of every step
    ActionQueue actions_;
    std::deque<std::chrono::steady_clock::time_point> frameTimes_;
    bool quit_ = false;
    int exitCode_ = 0;
};

}  // namespace llama::viewer
