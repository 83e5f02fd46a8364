// llama-viewer: watch a Llama model compute, stage by stage, in a window.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "fonts.h"
#include "ml/thread_pool.h"
#include "options/checked_option.h"
#include "options/run_options.h"
#include "state/script.h"
#include "viewer_app.h"

using namespace llama;
using namespace llama::viewer;

namespace {
// Frames are capped so the UI leaves the cores to the engine; 60 fps is plenty for a viewer.
constexpr auto kFrameBudget = std::chrono::microseconds(1000000 / 60);

int runWindow(AppOptions options, int width, int height) {
    glfwSetErrorCallback([](int code, const char* text) { std::fprintf(stderr, "GLFW error %d: %s\n", code, text); });
    if (!glfwInit()) {
        std::fprintf(stderr, "error: cannot open a window (no display? run under xvfb-run for scripts)\n");
        return 1;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    GLFWwindow* window = glfwCreateWindow(width, height, "llama-viewer", nullptr, nullptr);
    if (!window) {
        std::fprintf(stderr, "error: cannot create an OpenGL 3.3 window\n");
        glfwTerminate();
        return 1;
    }
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
        while (!glfwWindowShouldClose(window) && !app.quitRequested()) {
            auto frameStart = std::chrono::steady_clock::now();
            glfwPollEvents();
            app.beforeFrame();
            ImGui_ImplOpenGL3_NewFrame();
            ImGui_ImplGlfw_NewFrame();
            ImGui::NewFrame();
            app.drawFrame();
            ImGui::Render();
            int fbW = 0, fbH = 0;
            glfwGetFramebufferSize(window, &fbW, &fbH);
            glViewport(0, 0, fbW, fbH);
            glClearColor(0.10f, 0.10f, 0.12f, 1.0f);
            glClear(GL_COLOR_BUFFER_BIT);
            ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
            app.afterRender(fbW, fbH);
            glfwSwapBuffers(window);
            std::this_thread::sleep_until(frameStart + kFrameBudget);
        }
        exitCode = app.exitCode();
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
    CLI::App cli{"llama-viewer: watch a Llama model compute, stage by stage"};
    AppOptions o;
    o.chaptersDir = LLAMA_SOURCE_DIR "/chapters";
    o.fontPath = kDefaultFontPath;
    // The model, prompt, sampling and what-if options are llama-walkthrough's own (options/run_options.h).
    options::ModelChoice choice{.model = LLAMA_SOURCE_DIR "/assets/model"};
    int threads = 0, width = 1280, height = 800;
    options::addModelOptions(cli, choice, o.settings.sampling.seed);
    std::string trace;
    auto* traceOption = cli.add_option("--trace", trace, "Replay a trace written by llama-walkthrough --trace")
                            ->excludes(cli.get_option("--model"))
                            ->excludes(cli.get_option("--synthetic"));
    cli.add_option("--compare", o.source.compare, "A second trace to compare the replayed one with, stage by stage (the Compare panel)")
        ->needs(traceOption)
        ->check(CLI::ExistingFile);
    cli.add_option("--script", o.scriptPath, "Run a scripted walk-through (see --help-script)");
    bool helpScript = false;
    cli.add_flag("--help-script", helpScript, "List the script commands");
    options::addGenerationOptions(cli, o.settings);
    options::addWhatIfOptions(cli, o.settings.whatIf);
    options::addThreadsOption(cli, threads);
    options::addReal(cli, "--scale", o.uiScale, {kMinUiScale, kMaxUiScale, false, fmt::format("a UI scale from {} to {}", kMinUiScale, kMaxUiScale)},
                     "UI scale for projectors");
    options::addInteger(cli, "--width", width, {640, 7680, "a width from 640 to 7680 pixels"}, "Window width");
    options::addInteger(cli, "--height", height, {480, 4320, "a height from 480 to 4320 pixels"}, "Window height");
    cli.add_option("--chapters", o.chaptersDir, "Directory of the chapter files");
    cli.add_option("--font", o.fontPath, "TrueType font for the UI (one that is not a valid TrueType file falls back to the built-in font)");
    if (auto code = options::parseCommandLine(cli, argc, argv)) return *code;
    if (helpScript) {
        for (const auto& c : scriptCommands()) fmt::print("  {:<15} {}\n", c.name, c.help);
        return 0;
    }
    o.source.model = choice.source(o.settings.sampling.seed);
    o.source.trace = trace;
    try {
        if (!o.scriptPath.empty()) loadScript(o.scriptPath);  // report script errors before opening a window
        if (threads > 0) ml::ThreadPool::configureGlobal(threads);
        return runWindow(std::move(o), width, height);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
