#pragma once
// Runs a parsed script one command at a time across frames: commands that change the engine
// wait until it is held or finished, screenshots wait for a few frames so the panels have
// caught up, and an error ends the program with a message naming the script line.
#include <chrono>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "state/script.h"
#include "stages/step_controller.h"

namespace llama::viewer {

class ViewerApp;

// What a capture writes: the window, the shown panel with a caption, or the panel alone at 1920x1080.
enum class CaptureKind { Window, Panel, Slide };

class ScriptRunner {
public:
    explicit ScriptRunner(std::vector<ScriptCommand> commands);
    // Called once per frame before drawing.
    void update(ViewerApp& app);

private:
    enum class Wait { None, Loaded, Settled, Finished, StepTo, Frames, Fps, Keys, Resumed, Pressed };
    // What each command of scriptCommands() does, by its name.
    using Handler = void (*)(ScriptRunner&, ViewerApp&, const ScriptCommand&);
    static const std::unordered_map<std::string_view, Handler>& handlers();

    bool waitDone(ViewerApp& app);
    void execute(ViewerApp& app, const ScriptCommand& c);
    void waitFrames(int count);
    void fail(ViewerApp& app, const std::string& message);

    std::vector<ScriptCommand> commands_;
    size_t next_ = 0;
    Wait wait_ = Wait::None;
    int frames_ = 0;
    std::string pendingScreenshot_;
    CaptureKind pendingKind_ = CaptureKind::Window;
    std::optional<Breakpoint> stepTarget_;
    std::vector<Breakpoint> userBreakpoints_;
    std::chrono::steady_clock::time_point waitStart_, fpsEnd_;
    int fpsFrames_ = 0;
    std::string fpsWhere_;
};

}  // namespace llama::viewer
