#include "viewer_app.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <fmt/format.h>

#include <cstdio>

#include "fonts.h"
#include "panels/panels.h"
#include "screenshot.h"

namespace llama::viewer {

ViewerApp::ViewerApp(AppOptions options) : options_(std::move(options)), settings_(options_.settings) {
    requestedScale_ = std::clamp(options_.uiScale, kMinUiScale, kMaxUiScale);
    if (!options_.scriptPath.empty()) {
        // A script starts from a clean slate and loads the model itself (`load`). The mouse is
        // ignored so the pointer's resting place cannot change what a screenshot shows.
        script_ = std::make_unique<ScriptRunner>(loadScript(options_.scriptPath));
        ImGui::GetIO().ConfigFlags |= ImGuiConfigFlags_NoMouse;
    } else {
        load(options_.source);
    }
}

ViewerApp::~ViewerApp() { session_.stop(); }

void ViewerApp::load(const ViewerSource& source) {
    source_ = source;
    session_.load(source);
}

bool ViewerApp::runActive() const {
    SessionState s = session_.status().state;
    return s == SessionState::Running || s == SessionState::Paused;
}

void ViewerApp::perform(Action action) {
    // Starting a run joins the loader first; ignoring the keys meanwhile keeps the window live.
    if (session_.status().state == SessionState::Loading) return;
    const bool active = runActive();
    const StageRecord* shown = currentRecord();
    switch (action) {
        case Action::Run:
            if (active) session_.runFree();
            else session_.start(settings_, StepController::Mode::Continue, false);
            break;
        case Action::Continue:
            if (active) session_.continueRun();
            else session_.start(settings_, StepController::Mode::Continue, true);
            break;
        case Action::Pause: session_.pause(); break;
        case Action::Step:
        case Action::StepLayer:
        case Action::StepToken:
            if (!active) session_.start(settings_, StepController::Mode::Stage, true);
            else if (action == Action::Step) session_.step();
            else if (action == Action::StepLayer) session_.nextLayer();
            else session_.nextToken();
            view_.selectedRecord = -1;  // stepping means following the engine again
            break;
        case Action::Stop: session_.stop(); break;
        case Action::Restart: session_.start(settings_, StepController::Mode::Stage, true); break;
        case Action::ToggleBreakpoint:
        case Action::ToggleLayerBreakpoint:
            if (shown) {
                auto bps = session_.breakpoints();
                std::optional<int> layer;
                if (action == Action::ToggleLayerBreakpoint && shown->layer >= 0) layer = shown->layer;
                toggleBreakpoint(bps, shown->stage, layer);
                session_.setBreakpoints(bps);
            }
            break;
    }
}

void ViewerApp::showPanel(Panel panel) {
    view_.panel = panel;
    panelChangeRequested_ = true;
}

void ViewerApp::requestCapture(const std::string& path, bool panelOnly) { captures_.push_back({path, panelOnly}); }

const StageRecord* ViewerApp::currentRecord() const {
    if (snap_.records.empty()) return nullptr;
    if (view_.selectedRecord >= 0 && view_.selectedRecord < int(snap_.records.size())) return snap_.records[size_t(view_.selectedRecord)].get();
    return snap_.records.back().get();
}

float ViewerApp::fps() const {
    if (frameTimes_.size() < 2) return 0;
    double s = std::chrono::duration<double>(frameTimes_.back() - frameTimes_.front()).count();
    return s > 0 ? float(double(frameTimes_.size() - 1) / s) : 0;
}

void ViewerApp::beforeFrame() {
    auto now = std::chrono::steady_clock::now();
    frameTimes_.push_back(now);
    while (frameTimes_.size() > 2 && now - frameTimes_.front() > std::chrono::seconds(1)) frameTimes_.pop_front();
    if (requestedScale_ != appliedScale_) {
        fontNote_ = loadUiFont(options_.fontPath, requestedScale_);
        if (appliedScale_ != 0) {
            ImGui_ImplOpenGL3_DestroyFontsTexture();
            ImGui_ImplOpenGL3_CreateFontsTexture();
        }
        appliedScale_ = requestedScale_;
    }
    if (script_) script_->update(*this);
}

void ViewerApp::refreshSnapshot() {
    auto capture = session_.capture();
    if (capture != snapFrom_) snap_ = {}, snapFrom_ = capture, view_.selectedRecord = -1;  // a new run
    if (capture) capture->snapshot(snap_);
}

void ViewerApp::handleShortcuts() {
    const ImGuiIO& io = ImGui::GetIO();
    auto pressed = [](int key) { return ImGui::IsKeyPressed(key, false); };
    if (pressed(GLFW_KEY_F5)) perform(io.KeyShift ? Action::Stop : io.KeyCtrl ? Action::Restart : Action::Run);
    if (pressed(GLFW_KEY_F8)) perform(Action::Continue);
    if (pressed(GLFW_KEY_F6)) perform(Action::Pause);
    if (pressed(GLFW_KEY_F10)) perform(Action::Step);
    if (pressed(GLFW_KEY_F11)) perform(Action::StepLayer);
    if (pressed(GLFW_KEY_F12)) perform(Action::StepToken);
    if (pressed(GLFW_KEY_F9)) perform(io.KeyShift ? Action::ToggleLayerBreakpoint : Action::ToggleBreakpoint);
}

void ViewerApp::drawFrame() {
    refreshSnapshot();
    handleShortcuts();
    const StageRecord* current = currentRecord();
    // A newly shown stage inside a block: the attention panel follows its layer.
    if (current && current->index != lastShown_) {
        if (current->layer >= 0 && current->layer != view_.attentionLayer) view_.attentionLayer = current->layer, view_.cell.reset();
        lastShown_ = current->index;
    }
    auto model = session_.model();
    PanelContext c{session_,
                   view_,
                   snap_,
                   model.get(),
                   current,
                   snap_.records.empty() ? nullptr : snap_.records.back().get(),
                   session_.status(),
                   textures_,
                   options_.chaptersDir,
                   [this](const std::string& path) { requestCapture(path, true); },
                   [this](Action a) { perform(a); },
                   settings_,
                   requestedScale_,
                   source_.describe(),
                   fps()};

    const ImVec2 d = ImGui::GetIO().DisplaySize;
    const float leftW = std::max(d.x * 0.30f, std::min(d.x * 0.5f, 400.0f * appliedScale_));
    const float controlsH = d.y * 0.52f, tabsH = d.y * 0.70f;
    const ImGuiWindowFlags fixed = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse;
    auto place = [](float x, float y, float w, float h) {
        ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_Always);
        ImGui::SetNextWindowSize(ImVec2(w, h), ImGuiCond_Always);
    };

    place(0, 0, leftW, controlsH);
    if (ImGui::Begin("Run", nullptr, fixed)) drawControlsPanel(c);
    ImGui::End();
    place(0, controlsH, leftW, d.y - controlsH);
    if (ImGui::Begin("Stage timeline", nullptr, fixed)) drawTimelinePanel(c);
    ImGui::End();

    place(leftW, 0, d.x - leftW, tabsH);
    if (ImGui::Begin("Panels", nullptr, fixed | ImGuiWindowFlags_NoTitleBar)) {
        ImVec2 p = ImGui::GetWindowPos(), s = ImGui::GetWindowSize();
        panelRect_[0] = p.x, panelRect_[1] = p.y, panelRect_[2] = s.x, panelRect_[3] = s.y;
        drawWhatIfBanner(c);
        if (ImGui::BeginTabBar("panels", ImGuiTabBarFlags_FittingPolicyScroll)) {
            for (Panel panel : allPanels()) {
                ImGuiTabItemFlags flags = panelChangeRequested_ && panel == view_.panel ? ImGuiTabItemFlags_SetSelected : 0;
                if (!ImGui::BeginTabItem(panelTitle(panel), nullptr, flags)) continue;
                if (!panelChangeRequested_) view_.panel = panel;
                switch (panel) {
                    case Panel::Shapes: drawShapesPanel(c); break;
                    case Panel::Heatmap: drawHeatmapPanel(c); break;
                    case Panel::Mask: drawMaskPanel(c); break;
                    case Panel::Attention: drawAttentionPanel(c); break;
                    case Panel::Logits: drawLogitsPanel(c); break;
                    case Panel::Lens: drawLensPanel(c); break;
                    case Panel::Compare: drawComparePanel(c); break;
                    case Panel::KvCache: drawKvCachePanel(c); break;
                    case Panel::Tokens: drawTokensPanel(c); break;
                    case Panel::Chapter: drawChapterPanel(c); break;
                }
                ImGui::EndTabItem();
            }
            panelChangeRequested_ = false;
            ImGui::EndTabBar();
        }
    }
    ImGui::End();

    const float bottomW = d.x - leftW;
    place(leftW, tabsH, bottomW * 0.42f, d.y - tabsH);
    if (ImGui::Begin("Output", nullptr, fixed)) drawOutputPanel(c);
    ImGui::End();
    place(leftW + bottomW * 0.42f, tabsH, bottomW * 0.58f, d.y - tabsH);
    if (ImGui::Begin("Log", nullptr, fixed | ImGuiWindowFlags_HorizontalScrollbar)) drawLogPanel(c);
    ImGui::End();
}

void ViewerApp::afterRender(int framebufferWidth, int framebufferHeight) {
    const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
    for (const auto& cap : captures_) {
        PixelRect r{0, 0, framebufferWidth, framebufferHeight};
        if (cap.panelOnly)
            r = {int(panelRect_[0] * scale.x), int(panelRect_[1] * scale.y), int(panelRect_[2] * scale.x), int(panelRect_[3] * scale.y)};
        try {
            writeFramebufferPng(cap.path, r, framebufferHeight);
            std::printf("wrote %s (%dx%d)\n", cap.path.c_str(), r.w, r.h);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "error: %s\n", e.what());
            if (script_) requestQuit(1);  // a script's screenshot that failed fails the script, as a failed export does
        }
    }
    std::fflush(stdout);
    captures_.clear();
    textures_.endFrame();
}

}  // namespace llama::viewer
