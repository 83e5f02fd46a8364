// llama-viewer: watch a Llama model compute, stage by stage, in a window.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "fonts.h"
#include "screenshot.h"
#include "ml/thread_pool.h"
#include "options/bundled_path.h"
#include "state/script.h"
#include "state/script_facts.h"
#include "state/viewer_command_line.h"
#include "tensor/heap_policy.h"
#include "viewer_app.h"

using namespace llama;
using namespace llama::viewer;

namespace {
// Frames are capped so the UI leaves the cores to the engine: 60 fps while a learner works with
// a held or finished run; while the model computes, 15 fps, or fewer when a frame is drawn in
// software (a virtual X server, a machine without a GPU driver) and costs more than a token of
// the bundled model: a frame is then drawn once per 25 frames' drawing time (drawing in
// software also keeps rasterizer threads busy for about as long again), at no fewer than 4 fps
// so the timeline still moves.
constexpr auto kFrameBudget = std::chrono::microseconds(1000000 / 60);
constexpr auto kComputingFrameBudget = std::chrono::microseconds(1000000 / 15);
constexpr auto kSlowestComputingFrame = std::chrono::microseconds(1000000 / 4);
constexpr int kDrawShare = 25;
constexpr auto kComputingWakeCheck = std::chrono::milliseconds(5);

std::chrono::microseconds computingFrameInterval(std::chrono::microseconds drawTime) {
    return std::clamp<std::chrono::microseconds>(drawTime * kDrawShare, kComputingFrameBudget, kSlowestComputingFrame);
}

// The window's size and place: what --width/--height ask for, else the monitor's work area (the
// screen without task bars and docks), so a 1366x768 laptop shows the whole window.
struct Placement {
    int x = 0, y = 0, w = 1280, h = 800;
    bool place = false;
};

Placement placementFor(int width, int height) {
    Placement p;
    int ax = 0, ay = 0, aw = 0, ah = 0;
    if (GLFWmonitor* monitor = glfwGetPrimaryMonitor()) glfwGetMonitorWorkarea(monitor, &ax, &ay, &aw, &ah);
    if (width > 0 || height > 0 || aw <= 0 || ah <= 0) {
        p.w = width > 0 ? width : p.w, p.h = height > 0 ? height : p.h;
        return p;
    }
    p = {ax, ay, aw, ah, true};
    return p;
}

// ImGui's key callback, which ours passes every key on to.
GLFWkeyfun imguiKeyCallback = nullptr;

// Key presses reach the viewer as events, not as the key's state at the next frame: a presenter's
// clicker taps shorter than a frame.
void keyCallback(GLFWwindow* window, int key, int scancode, int action, int mods) {
    if (imguiKeyCallback) imguiKeyCallback(window, key, scancode, action, mods);
    if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
    if (auto* app = static_cast<ViewerApp*>(glfwGetWindowUserPointer(window)))
        app->keyPressed(key, (mods & GLFW_MOD_CONTROL) != 0, (mods & GLFW_MOD_SHIFT) != 0);
}

int runWindow(AppOptions options, int width, int height) {
    glfwSetErrorCallback([](int code, const char* text) { std::fprintf(stderr, "GLFW error %d: %s\n", code, text); });
    if (!glfwInit()) {
        std::fprintf(stderr, "error: cannot open a window (no display? run under xvfb-run for scripts)\n");
        return 1;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    const Placement place = placementFor(width, height);
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);  // shown once placed
    GLFWwindow* window = glfwCreateWindow(place.w, place.h, "llama-viewer", nullptr, nullptr);
    if (!window) {
        std::fprintf(stderr, "error: cannot create an OpenGL 3.3 window\n");
        glfwTerminate();
        return 1;
    }
    if (place.place) {
        // The title bar and borders count against the work area too.
        int left = 0, top = 0, right = 0, bottom = 0;
        glfwGetWindowFrameSize(window, &left, &top, &right, &bottom);
        glfwSetWindowSize(window, std::max(640, place.w - left - right), std::max(480, place.h - top - bottom));
        glfwSetWindowPos(window, place.x + left, place.y + top);
    }
    glfwShowWindow(window);
    glfwMakeContextCurrent(window);
    glfwSwapInterval(1);
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed; nothing to remember between runs
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330");

    int exitCode = 0;
    {
        ViewerApp app(std::move(options));
        glfwSetWindowUserPointer(window, &app);
        imguiKeyCallback = glfwSetKeyCallback(window, keyCallback);
        OffscreenTarget slideTarget;
        std::chrono::microseconds drawTime{0};  // a frame's drawing, smoothed over the last few
        while (!glfwWindowShouldClose(window) && !app.quitRequested()) {
            auto frameStart = std::chrono::steady_clock::now();
            glfwPollEvents();
            app.beforeFrame();
            ImGui_ImplOpenGL3_NewFrame();
            ImGui_ImplGlfw_NewFrame();
            const bool slide = app.slidePending();
            if (slide) {
                ImGui::GetIO().DisplaySize = ImVec2(ViewerApp::kSlideWidth, ViewerApp::kSlideHeight);
                ImGui::GetIO().DisplayFramebufferScale = ImVec2(1, 1);
            }
            ImGui::NewFrame();
            app.drawFrame();
            ImGui::Render();
            int fbW = 0, fbH = 0;
            glfwGetFramebufferSize(window, &fbW, &fbH);
            if (slide) slideTarget.bind(fbW = ViewerApp::kSlideWidth, fbH = ViewerApp::kSlideHeight);
            glViewport(0, 0, fbW, fbH);
            glClearColor(0.10f, 0.10f, 0.12f, 1.0f);
            glClear(GL_COLOR_BUFFER_BIT);
            ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
            app.afterRender(fbW, fbH);
            if (slide) OffscreenTarget::unbind();
            glfwSwapBuffers(window);
            const auto drawn = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - frameStart);
            drawTime = (drawTime * 3 + drawn) / 4;
            if (!app.computing()) {
                std::this_thread::sleep_until(frameStart + kFrameBudget);
            } else {
                // The long wait of a computing frame ends as soon as the run stops computing
                // (finished, held at a breakpoint, failed), so that shows without delay.
                const auto until = frameStart + computingFrameInterval(drawTime);
                while (app.computing() && std::chrono::steady_clock::now() < until)
                    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(kComputingWakeCheck, until - std::chrono::steady_clock::now()));
            }
        }
        exitCode = app.exitCode();
        glfwSetWindowUserPointer(window, nullptr);
        // ~ViewerApp stops the engine (releasing it if held) and joins the worker.
    }
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return exitCode;
}
}  // namespace

int main(int argc, char** argv) {
    keepTensorBlocksInHeap();
    CommandLine line;
    line.app.source.model = {ModelSource::Kind::Files, options::bundledPath("assets/model")};
    line.app.chaptersDir = options::bundledPath("chapters");
    line.app.fontPath = kDefaultFontPath;
    try {
        ViewerCommandLine cli(line);
        if (auto code = cli.parse(argc, argv)) return *code;
        if (line.helpScript) {
            for (const auto& c : scriptCommands()) fmt::print("  {:<15} {}\n", c.name, c.help);
            fmt::print("\nFacts `expect` checks:\n");
            for (const auto& [name, what] : scriptFactNames()) fmt::print("  {:<15} {}\n", name, what);
            return 0;
        }
        if (!line.app.scriptPath.empty()) loadScript(line.app.scriptPath);  // report script errors before opening a window
        if (line.threads > 0) ml::ThreadPool::configureGlobal(line.threads);
        return runWindow(std::move(line.app), line.width, line.height);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
