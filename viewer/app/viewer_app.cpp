#include "viewer_app.h"

#include "session/kv_cache_check.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <imgui_stdlib.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "fonts.h"
#include "state/dir_listing.h"
#include "state/export_caption.h"
#include "state/session_controls.h"
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
    if (source.trace.empty()) modelSource_ = source;
    session_.load(source);
}

void ViewerApp::backToModel() {
    resumeAt_ = -1;
    if (session_.backToModel()) {
        source_ = modelSource_;
        return;
    }
    ViewerSource src = options_.source;
    src.trace.clear(), src.compare.clear(), src.traceLabel.clear();
    load(src);
}

void ViewerApp::perform(Action action) { performAction(action, session_, settings_, view_, currentRecord()); }

std::string ViewerApp::saveTrace(const std::string& path) {
    const std::string to = path == "-" ? unusedPath("llama-viewer-run.trace") : path;
    session_.saveRecordedTrace(to);
    view_.exportNote = savedNote(to), view_.exportNoteTime = ImGui::GetTime(), view_.lastSaved = to;
    return to;
}

std::string ViewerApp::saveTraceReason() const {
    return saveTraceUnavailable(session_.status().state, session_.isReplay(), !session_.recordedTrace().empty(), session_.settings().recordTrace);
}

void ViewerApp::compareWith(const std::string& path) {
    // A live run is compared as the trace it recorded (in the temporary folder: no copy is written;
    // File > Save trace keeps it); the run shown replays to the stage shown now, not from the start.
    ViewerSource src = source_;
    if (src.trace.empty()) {
        if (const std::string reason = saveTraceReason(); !reason.empty()) throw std::runtime_error("a live run is compared as its trace: " + reason);
        src.trace = session_.recordedTrace();
        src.traceLabel = "this live run";
    }
    src.compare = path;
    HistorySnapshot now;  // fresh: a script may ask before the next frame refreshed the panels' snapshot
    if (auto capture = session_.capture()) capture->snapshot(now);
    const StageRecord* shown = shownRecord(now, view_);
    resumeAt_ = shown ? shown->index : -1;
    load(src);
}

void ViewerApp::checkKvCache() {
    // The run without the cache is kept; the same settings run again with it, and when that run
    // ends, the two traces are compared (drawFrame): equal logits mean the cache changes nothing.
    kvCheckWithout_ = saveTrace("-");
    kvCheckWithoutLogits_ = session_.runLogits();
    RunSettings cached = session_.settings();
    cached.whatIf.noKvCache = false;
    cached.recordTrace = true;
    cached.keepStepLogits = true;
    session_.start(cached, StepController::Mode::Continue, false);
}

void ViewerApp::showPanel(Panel panel) {
    view_.panel = panel;
    panelChangeRequested_ = true;
}

void ViewerApp::requestCapture(const std::string& path, CaptureKind kind, std::string origin) {
    captures_.push_back({path, kind, std::move(origin)});
}

bool ViewerApp::slidePending() const {
    return !captures_.empty() && captures_.front().kind == CaptureKind::Slide;
}

const StageRecord* ViewerApp::currentRecord() const { return shownRecord(frame_.snap, view_); }

float ViewerApp::fps() const {
    if (frameTimes_.size() < 2) return 0;
    double s = std::chrono::duration<double>(frameTimes_.back() - frameTimes_.front()).count();
    return s > 0 ? float(double(frameTimes_.size() - 1) / s) : 0;
}

void ViewerApp::beforeFrame() {
    auto now = std::chrono::steady_clock::now();
    frameTimes_.push_back(now);
    while (frameTimes_.size() > 2 && now - frameTimes_.front() > std::chrono::seconds(1)) frameTimes_.pop_front();
    if (script_) script_->update(*this);
    // A slide is drawn with text for the back of a room (the font rebuilt at least at kSlideUiScale
    // for its frame), whatever the window's scale; the frame after it goes back.
    const float scale = slidePending() ? std::max(requestedScale_, kSlideUiScale) : requestedScale_;
    if (scale != appliedScale_) {
        fontNote_ = loadUiFont(options_.fontPath, scale, font_);
        if (appliedScale_ != 0) {
            ImGui_ImplOpenGL3_DestroyFontsTexture();
            ImGui_ImplOpenGL3_CreateFontsTexture();
        }
        appliedScale_ = scale;
    }
}

namespace {
int glfwKey(Key k) {
    switch (k) {
        case Key::F5: return GLFW_KEY_F5;
        case Key::F6: return GLFW_KEY_F6;
        case Key::F8: return GLFW_KEY_F8;
        case Key::F9: return GLFW_KEY_F9;
        case Key::F10: return GLFW_KEY_F10;
        case Key::F11: return GLFW_KEY_F11;
        case Key::F12: return GLFW_KEY_F12;
        case Key::Right: return GLFW_KEY_RIGHT;
        case Key::Space: return GLFW_KEY_SPACE;
        case Key::Enter: return GLFW_KEY_ENTER;
        case Key::R: return GLFW_KEY_R;
        case Key::PageDown: return GLFW_KEY_PAGE_DOWN;
    }
    return GLFW_KEY_UNKNOWN;
}
}  // namespace

void ViewerApp::keyPressed(int glfwKeyCode, bool ctrl, bool shift) {
    for (int k = 0; k <= int(Key::PageDown); ++k)
        if (glfwKey(Key(k)) == glfwKeyCode) keyPresses_.push_back({Key(k), ctrl, shift});
}

void ViewerApp::handleShortcuts() {
    // Every press GLFW reported since the last frame (a tap shorter than a frame too), through the
    // key table (state/view_state); only the F-keys and Ctrl+R act while the prompt box has the keyboard.
    const ImGuiIO& io = ImGui::GetIO();
    const bool dialog = open_.what != OpenDialogState::What::None;  // the dialog's text box has the keys
    for (const KeyChord& k : keyPresses_)
        if (auto action = actionForKey(k); action && !dialog && (actsWhileTyping(k) || !io.WantTextInput)) actions_.push(*action);
    keyPresses_.clear();
    // Each stepping action waits for the stage the one before led to: none is lost while the engine computes.
    for (;;) {
        const SessionStatus st = session_.status();
        const auto action = actions_.next(st.holds, st.state == SessionState::Running || st.state == SessionState::Paused);
        if (!action) break;
        perform(*action);
    }
    if (dialog) return;
    if (!io.WantTextInput)
        for (ImWchar ch : io.InputQueueCharacters)
            if (ch == '?') helpOpen_ = !helpOpen_;
    if (ImGui::IsKeyPressed(GLFW_KEY_F1, false)) helpOpen_ = !helpOpen_;
    if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) helpOpen_ = false;
}

std::string ViewerApp::caption(const PanelContext& c) const {
    CaptionFacts f;
    f.model = modelLabel(c.model ? c.model->format : "", source_.describe());
    f.prompt = c.replay ? session_.settings().prompt : settings_.prompt;
    if (c.current) {
        f.step = c.current->step, f.layer = c.current->layer;
        f.stageNumber = c.current->info().number, f.stageTitle = std::string(c.current->info().title);
        if (view_.panel == Panel::Attention) f.layer = view_.attentionLayer, f.head = view_.head;
        if (view_.panel == Panel::Map && view_.mapLayer >= 0) f.layer = view_.mapLayer;
    }
    if (c.model) f.layers = c.model->args.n_layers;
    f.whatIf = session_.settings().whatIf.describe();  // a replayed trace's own, as the banner shows
    f.grammar = session_.settings().grammar || c.replay ? session_.settings().grammarSource : "";
    return exportCaption(f);
}

void ViewerApp::drawMenuBar(PanelContext& c) {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::MenuItem("Open trace...")) open_.what = OpenDialogState::What::Trace, open_.name.clear();
        // From a trace back to the live model, its last run as it was: a lecture's flow in one window.
        if (ImGui::MenuItem("Back to the model", nullptr, false, !source_.trace.empty())) backToModel();
        if (!source_.trace.empty()) {
            ImGui::Indent();
            ImGui::TextDisabled("%s", session_.hasModelBehind() ? fmt::format("{}, with its last run", modelSource_.describe()).c_str()
                                                                : fmt::format("loads {}", options_.source.model.describe()).c_str());
            ImGui::Unindent();
        }
        // A greyed item says why under it: a teacher should not have to guess which box to tick.
        const std::string unavailable = saveTraceReason();
        auto why = [](const std::string& reason) {
            if (reason.empty()) return;
            ImGui::Indent();
            ImGui::TextDisabled("%s", reason.c_str());
            ImGui::Unindent();
        };
        if (ImGui::MenuItem("Save trace of this run", nullptr, false, unavailable.empty())) {
            try {
                saveTrace("-");
            } catch (const std::exception& e) {
                view_.exportNote = e.what(), view_.exportNoteTime = ImGui::GetTime();
            }
        }
        why(unavailable);
        const bool comparable = !source_.trace.empty() || unavailable.empty();
        if (ImGui::MenuItem("Compare with trace...", nullptr, false, comparable)) open_.what = OpenDialogState::What::Compare, open_.name.clear();
        if (!comparable) why("a live run is compared as its trace: " + unavailable);
        ImGui::Separator();
        if (ImGui::MenuItem("Export panel PNG (with caption)")) requestCapture(exportPath(c, panelKey(view_.panel), "png"), CaptureKind::Panel);
        if (ImGui::MenuItem("Export slide (1920x1080)"))
            requestCapture(exportPath(c, std::string("slide-") + panelKey(view_.panel), "png"), CaptureKind::Slide);
        ImGui::Separator();
        if (ImGui::MenuItem("Quit")) requestQuit(0);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Run")) {
        for (const auto& a : actionInfos()) {
            if (ImGui::MenuItem(a.label, shortcutText(a).c_str())) perform(a.action);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", a.help);
        }
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("What-if")) {
        ImGui::TextDisabled("Experiments for the next run (Run > Restart applies them)");
        drawWhatIfSettings(c);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        for (Panel p : allPanels())
            if ((p != Panel::Patching || session_.patchGrid()) && ImGui::MenuItem(panelTitle(p), nullptr, view_.panel == p)) showPanel(p);
        ImGui::Separator();
        const std::pair<Region, const char*> regions[] = {
            {Region::Run, "Run controls"}, {Region::Timeline, "Stage timeline"}, {Region::Output, "Output"}, {Region::Log, "Log"}};
        for (auto [region, name] : regions)
            if (ImGui::MenuItem(name, nullptr, &layout_.isOpen(region))) layoutTouched_ = true;
        if (ImGui::MenuItem("Reset layout")) layoutTouched_ = false;
        ImGui::Separator();
        if (ImGui::BeginMenu("UI scale")) {
            for (float scale : {1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f})
                if (ImGui::MenuItem(fmt::format("{:.2f}", scale).c_str(), nullptr, requestedScale_ == scale)) requestedScale_ = scale;
            ImGui::EndMenu();
        }
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Help")) {
        if (ImGui::MenuItem("Keys", "?")) helpOpen_ = true;
        ImGui::EndMenu();
    }
    // Where the run is, always in sight.
    SessionStatus st = session_.status();
    if (st.state == SessionState::Loading) {
        // The reader's own count (bytes of weights read in, or of trace records parsed); until it
        // says how much there is, the bar moves only to show the window is alive.
        ImGui::TextUnformatted("  loading");
        loadingBar(st.loading, ImGui::GetFontSize() * 10);
    } else {
        ImGui::TextDisabled("  %s   |   ? keys", stateName(st.state));
    }
    // Where the last export went, for a while after it.
    if (!view_.exportNote.empty() && ImGui::GetTime() - view_.exportNoteTime < 15) {
        ImGui::SameLine();
        ImGui::TextColored(ImVec4(0.55f, 0.85f, 0.55f, 1), "  |  %s", view_.exportNote.c_str());
    }
    ImGui::EndMainMenuBar();
}

void ViewerApp::drawPanelTabs(PanelContext& c) {
    drawWhatIfBanner(c);
    // Tabs while every title fits the region; else (a narrow window, a large UI scale) one menu of
    // the panels, so none hides behind scroll arrows.
    const ImGuiStyle& style = ImGui::GetStyle();
    std::vector<Panel> panels = allPanels();
    const auto patch = session_.patchGrid();
    if (!patch) std::erase(panels, Panel::Patching);
    if (patch && patch != patchShown_) showPanel(Panel::Patching);  // a patch trace opens at its heatmap
    patchShown_ = patch;
    float tabsWidth = 0;
    for (Panel panel : panels) tabsWidth += ImGui::CalcTextSize(panelTitle(panel)).x + style.FramePadding.x * 2 + style.ItemInnerSpacing.x;
    view_.panelsAsMenu = tabsWidth > ImGui::GetContentRegionAvail().x;
    if (view_.panelsAsMenu) {
        ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 12));
        if (ImGui::BeginCombo("##panel", panelTitle(view_.panel))) {
            for (Panel panel : panels)
                if (ImGui::Selectable(panelTitle(panel), panel == view_.panel)) view_.panel = panel;
            ImGui::EndCombo();
        }
        panelChangeRequested_ = false;
        ImGui::Separator();
        ImGui::BeginChild("panel");
        drawPanel(c, view_.panel);
        ImGui::EndChild();
        return;
    }
    if (!ImGui::BeginTabBar("panels", ImGuiTabBarFlags_FittingPolicyScroll)) return;
    for (Panel panel : panels) {
        ImGuiTabItemFlags flags = panelChangeRequested_ && panel == view_.panel ? ImGuiTabItemFlags_SetSelected : 0;
        if (!ImGui::BeginTabItem(panelTitle(panel), nullptr, flags)) continue;
        if (!panelChangeRequested_) view_.panel = panel;
        // In a child of its own: a long panel (Top logits) scrolls under the tabs, not them away.
        ImGui::BeginChild("panel");
        drawPanel(c, panel);
        ImGui::EndChild();
        ImGui::EndTabItem();
    }
    panelChangeRequested_ = false;
    ImGui::EndTabBar();
}

void ViewerApp::drawRegions(PanelContext& c, LayoutRect area) {
    const ImGuiStyle& style = ImGui::GetStyle();
    LayoutMetrics m;
    m.fontSize = ImGui::GetFontSize();
    m.title = ImGui::GetFrameHeight() + style.WindowPadding.y * 2;
    m.splitter = std::max(4.0f, 3 * appliedScale_);
    m.minRegion = 5 * m.fontSize;
    // Until the learner moves or folds something, the layout follows the screen and the UI scale.
    if (!layoutTouched_) layout_ = defaultLayout(area, m);
    const Layout l = computeLayout(layout_, area, m);

    ImGui::SetNextWindowPos(ImVec2(area.x, area.y));
    ImGui::SetNextWindowSize(ImVec2(area.w, area.h));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0);
    const ImGuiWindowFlags host = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoBringToFrontOnFocus |
                                  ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoSavedSettings;
    ImGui::Begin("##regions", nullptr, host);
    ImGui::PopStyleVar(2);

    struct Named {
        Region region;
        const char* title;
        void (*draw)(PanelContext&);
        ImGuiWindowFlags flags;
    };
    static const Named kRegions[] = {{Region::Run, "Run", drawControlsPanel, 0},
                                     {Region::Timeline, "Stage timeline", drawTimelinePanel, 0},
                                     {Region::Output, "Output", drawOutputPanel, 0},
                                     {Region::Log, "Log", drawLogPanel, 0}};
    for (const auto& r : kRegions) {
        LayoutRect rect = l.of(r.region);
        ImGui::SetCursorScreenPos(ImVec2(rect.x, rect.y));
        ImGui::BeginChild(r.title, ImVec2(rect.w, rect.h), true, ImGuiWindowFlags_NoScrollbar);
        bool& open = layout_.isOpen(r.region);
        // The title line: a triangle folds the region away (View menu brings it back too).
        if (ImGui::ArrowButton("fold", open ? ImGuiDir_Down : ImGuiDir_Right)) open = !open, layoutTouched_ = true;
        ImGui::SameLine();
        ImGui::TextUnformatted(r.title);
        if (open) {
            ImGui::BeginChild("content", ImVec2(0, 0), false, r.flags);
            r.draw(c);
            ImGui::EndChild();
        }
        ImGui::EndChild();
    }

    LayoutRect pr = l.of(Region::Panels);
    ImGui::SetCursorScreenPos(ImVec2(pr.x, pr.y));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, style.WindowPadding);
    ImGui::BeginChild("Panels", ImVec2(pr.w, pr.h), true);
    panelRect_[0] = pr.x, panelRect_[1] = pr.y, panelRect_[2] = pr.w, panelRect_[3] = pr.h;
    drawPanelTabs(c);
    ImGui::EndChild();
    ImGui::PopStyleVar();

    // Splitters: drag to move a border; they light up under the pointer.
    for (const auto& sp : l.splitters) {
        ImGui::SetCursorScreenPos(ImVec2(sp.rect.x, sp.rect.y));
        ImGui::PushID(int(sp.splitter));
        ImGui::InvisibleButton("splitter", ImVec2(std::max(1.0f, sp.rect.w), std::max(1.0f, sp.rect.h)));
        const bool hot = ImGui::IsItemHovered() || ImGui::IsItemActive();
        if (hot) ImGui::SetMouseCursor(sp.vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
        if (ImGui::IsItemActive()) {
            const ImVec2 delta = ImGui::GetIO().MouseDelta;
            dragSplitter(layout_, sp.splitter, sp.vertical ? delta.x : delta.y, area, m);
            layoutTouched_ = true;
        }
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(sp.rect.x, sp.rect.y), ImVec2(sp.rect.x + sp.rect.w, sp.rect.y + sp.rect.h),
                                                  ImGui::GetColorU32(hot ? ImGuiCol_SeparatorActive : ImGuiCol_Separator));
        ImGui::PopID();
    }
    ImGui::End();
}

void ViewerApp::drawExport(PanelContext& c, bool slide) {
    // The shown panel alone, filling the window (or the slide), with its caption under it.
    const ImVec2 d = ImGui::GetIO().DisplaySize;
    LayoutRect r = slide ? LayoutRect{0, 0, d.x, d.y} : LayoutRect{panelRect_[0], panelRect_[1], panelRect_[2], panelRect_[3]};
    const std::string captionText = caption(c);
    const ImGuiStyle& style = ImGui::GetStyle();
    const float captionH = ImGui::CalcTextSize(captionText.c_str(), nullptr, false, r.w - style.WindowPadding.x * 2).y +
                           style.ItemSpacing.y * 2 + style.WindowPadding.y * 2;
    ImGui::SetNextWindowPos(ImVec2(r.x, r.y));
    ImGui::SetNextWindowSize(ImVec2(r.w, r.h));
    ImGui::Begin("##export", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings);
    ImGui::TextUnformatted(panelTitle(view_.panel));
    ImGui::Separator();
    ImGui::BeginChild("panel", ImVec2(0, -captionH), false, ImGuiWindowFlags_NoScrollbar);
    drawPanel(c, view_.panel);
    ImGui::EndChild();
    ImGui::Separator();
    // The caption in the text's own colour and size: it names the model and where, and must read
    // on a projected slide.
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(captionText.c_str());
    ImGui::PopTextWrapPos();
    ImGui::End();
}

void ViewerApp::drawHelpOverlay() {
    if (!helpOpen_) return;
    const ImVec2 d = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(d.x / 2, d.y / 2), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(d.x * 0.9f, d.y * 0.9f));
    if (ImGui::Begin("Keys (? or F1 to close)", &helpOpen_, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse)) {
        if (ImGui::BeginTable("keys", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
            ImGui::TableSetupColumn("Action");
            ImGui::TableSetupColumn("Keys");
            ImGui::TableSetupColumn("What it does");
            ImGui::TableHeadersRow();
            for (const auto& a : actionInfos()) {
                const std::string keys = shortcutText(a);
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(a.label);
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(keys.c_str());
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(a.help);
            }
            ImGui::EndTable();
        }
        ImGui::Separator();
        ImGui::TextUnformatted("Map: click a box to show that stage and open its panel; click a layer number to show that layer.");
        ImGui::TextUnformatted("Heatmaps: mouse wheel zooms, drag pans, double-click resets; hover shows the token and value.");
        ImGui::TextUnformatted("Splitters between the regions move them; a region's triangle folds it away (View menu too).");
        ImGui::TextUnformatted("Arrows, Space and Enter step only while no text box has the keyboard; F-keys and Ctrl+R always do.");
    }
    ImGui::End();
}

void ViewerApp::drawOpenDialog() {
    if (open_.what == OpenDialogState::What::None) return;
    const char* title = open_.what == OpenDialogState::What::Trace ? "Open trace" : "Compare with trace";
    const ImVec2 d = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(d.x / 2, d.y / 2), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(std::min(d.x * 0.9f, 48 * ImGui::GetFontSize()), d.y * 0.7f));
    bool open = true;
    if (ImGui::Begin(title, &open, ImGuiWindowFlags_NoCollapse)) {
        const DirListing& listing = open_.listing(".trace");
        ImGui::TextWrapped("Folder: %s", listing.dir.c_str());
        ImGui::SetNextItemWidth(-ImGui::CalcTextSize("Open").x * 2);
        bool enter = ImGui::InputText("##path", &open_.name, ImGuiInputTextFlags_EnterReturnsTrue);
        ImGui::SameLine();
        bool chosen = ImGui::Button("Open") || enter;
        if (!listing.error.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", listing.error.c_str());
        ImGui::BeginChild("entries", ImVec2(0, 0), true);
        if (ImGui::Selectable("../")) open_.dir = listing.dir + "/..";
        for (const auto& dir : listing.dirs)
            if (ImGui::Selectable((dir + "/").c_str())) open_.dir = listing.dir + "/" + dir;
        for (const auto& f : listing.files) {
            if (ImGui::Selectable(f.c_str(), open_.name == f, ImGuiSelectableFlags_AllowDoubleClick)) {
                open_.name = f;
                if (ImGui::IsMouseDoubleClicked(0)) chosen = true;
            }
        }
        if (listing.files.empty()) ImGui::TextDisabled("no .trace files here (llama-walkthrough --trace FILE writes one)");
        ImGui::EndChild();
        if (chosen && !open_.name.empty()) {
            const OpenChoice choice = resolveOpenPath(open_.name, listing.dir);
            open_.error = choice.error;
            if (choice.error.empty()) {
                if (open_.what == OpenDialogState::What::Trace) {
                    ViewerSource src = source_;
                    src.trace = choice.path, src.compare.clear();
                    load(src);
                } else {
                    try {
                        compareWith(choice.path);
                    } catch (const std::exception& e) {
                        open_.error = e.what();
                    }
                }
                if (open_.error.empty()) open_.what = OpenDialogState::What::None;
            }
        }
        if (!open_.error.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", open_.error.c_str());
    }
    ImGui::End();
    if (!open) open_.what = OpenDialogState::What::None;
}

void ViewerApp::drawFrame() {
    refreshSnapshot(session_, view_, frame_);
    // The KV cache check's second run has ended: the two runs side by side.
    if (!kvCheckWithout_.empty() && session_.status().state == SessionState::Finished && !session_.recordedTrace().empty()) {
        const std::string with = saveTrace("-");
        // Every logit of every step compared, as llama-walkthrough --no-kv-cache does (the traces
        // keep only summaries of them).
        const auto withLogits = session_.runLogits();
        view_.kvCacheAgreement = kvCheckWithoutLogits_ && withLogits
                                     ? kvCacheAgreement(kvCheckWithoutLogits_->logits, withLogits->logits,
                                                        kvCheckWithoutLogits_->generated == withLogits->generated)
                                     : "The runs kept no logits to compare.";
        view_.kvCacheAgreementFor = with;
        ViewerSource src = source_;
        src.trace = kvCheckWithout_, src.compare = with;
        kvCheckWithout_.clear();
        kvCheckWithoutLogits_.reset();
        resumeAt_ = 0;
        load(src);
        showPanel(Panel::Compare);
    }
    // After Compare: the compared replay runs on by itself and shows the stage shown before.
    if (resumeAt_ >= 0) {
        const SessionStatus st = session_.status();
        if (st.state == SessionState::Ready) session_.start(settings_, StepController::Mode::Continue, false);
        if (int(frame_.snap.records.size()) > resumeAt_ && session_.capture() == frame_.from) view_.selectedRecord = resumeAt_, resumeAt_ = -1;
        if (st.state == SessionState::Failed) resumeAt_ = -1;
    }
    handleShortcuts();
    const StageRecord* current = currentRecord();
    // A newly shown stage inside a block: the attention panel follows its layer.
    if (current && current->index != lastShown_) {
        if (current->layer >= 0 && current->layer != view_.attentionLayer) view_.attentionLayer = current->layer, view_.cell.reset();
        lastShown_ = current->index;
    }
    auto model = session_.model();
    const HistorySnapshot& snap = frame_.snap;
    PanelContext c{.session = session_,
                   .view = view_,
                   .snap = snap,
                   .model = model.get(),
                   .current = current,
                   .live = snap.records.empty() ? nullptr : snap.records.back().get(),
                   .status = session_.status(),
                   .replay = session_.isReplay(),
                   .textures = textures_,
                   .caches = caches_,
                   .chaptersDir = options_.chaptersDir,
                   .exportPanelPng = [this](const std::string& path) { requestCapture(path, CaptureKind::Panel); },
                   .perform = [this](Action a) { perform(a); },
                   .showPanel = [this](Panel p) { showPanel(p); },
                   .checkKvCache = [this] { checkKvCache(); },
                   .settings = settings_,
                   .requestedUiScale = requestedScale_,
                   .sourceDescription = source_.describe(),
                   .fps = fps()};

    // A panel export or a slide is drawn alone (no buttons) in the frame it is written from.
    std::optional<CaptureKind> exporting;
    if (!captures_.empty()) {
        const CaptureKind kind = captures_.front().kind;
        for (auto& cap : captures_) cap.drawn = cap.kind == kind;
        if (kind != CaptureKind::Window) exporting = kind;
    }
    c.exporting = exporting.has_value();
    if (exporting) {
        drawExport(c, *exporting == CaptureKind::Slide);
        return;
    }
    drawMenuBar(c);
    const ImVec2 d = ImGui::GetIO().DisplaySize;
    const float menuH = ImGui::GetFrameHeight();
    drawRegions(c, LayoutRect{0, menuH, d.x, d.y - menuH});
    drawHelpOverlay();
    drawOpenDialog();
}

void ViewerApp::afterRender(int framebufferWidth, int framebufferHeight) {
    const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
    for (const auto& cap : captures_) {
        if (!cap.drawn) continue;
        PixelRect r{0, 0, framebufferWidth, framebufferHeight};
        if (cap.kind == CaptureKind::Panel)
            r = {int(panelRect_[0] * scale.x), int(panelRect_[1] * scale.y), int(panelRect_[2] * scale.x), int(panelRect_[3] * scale.y)};
        try {
            writeFramebufferPng(cap.path, r, framebufferHeight);
            std::printf("wrote %s (%dx%d)\n", cap.path.c_str(), r.w, r.h);
            if (cap.kind != CaptureKind::Window) view_.exportNote = savedNote(cap.path), view_.exportNoteTime = ImGui::GetTime(), view_.lastSaved = cap.path;
        } catch (const std::exception& e) {
            if (cap.kind != CaptureKind::Window) view_.exportNote = e.what(), view_.exportNoteTime = ImGui::GetTime();
            if (cap.origin.empty()) std::fprintf(stderr, "error: %s\n", e.what());
            else std::fprintf(stderr, "script error: %s: %s\n", cap.origin.c_str(), e.what());
            if (script_) requestQuit(1);  // a script's screenshot that failed fails the script, as a failed export does
        }
    }
    std::fflush(stdout);
    std::erase_if(captures_, [](const Capture& c) { return c.drawn; });
    textures_.endFrame();
}

}  // namespace llama::viewer
