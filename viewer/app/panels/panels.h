#pragma once
// One function per panel; each draws into the current ImGui window from a PanelContext.
#include <imgui.h>

#include <functional>
#include <string>

#include "state/capture_observer.h"
#include "state/dim_names.h"
#include "state/engine_session.h"
#include "state/panel_caches.h"
#include "state/panel_labels.h"
#include "stages/numbering.h"
#include "gl_textures.h"
#include "state/view_state.h"

namespace llama::viewer {

struct PanelContext {
    EngineSession& session;
    ViewState& view;
    const HistorySnapshot& snap;
    const Model* model;             // nullptr until loaded
    const StageRecord* current;     // the stage the panels show (selected, or the latest)
    const StageRecord* live;        // the latest captured stage
    SessionStatus status;
    bool replay = false;            // a recorded trace is loaded (EngineSession::isReplay)
    TextureCache& textures;
    PanelCaches& caches;
    std::string chaptersDir;
    std::function<void(const std::string&)> exportPanelPng;  // writes the current panel after this frame
    std::function<void(Action)> perform;
    std::function<void(Panel)> showPanel;  // brings a panel's tab to the front
    std::function<void()> checkKvCache;    // after a --no-kv-cache run: the same run with the cache, compared
    RunSettings& settings;       // edited by the prompt box, used by the next run
    float& requestedUiScale;     // applied between frames (the font atlas is rebuilt)
    std::string sourceDescription;
    float fps = 0;
    bool exporting = false;  // this frame is an exported picture: no buttons

    // The token at a position as the tables show it: the piece, special tokens in <|...|>.
    std::string piece(int32_t id) const;
    std::string positionLabel(int position) const;  // "3 God"
    DimContext dims(const StageRecord& r) const;
};

void drawControlsPanel(PanelContext& c);
// The next run's what-if switches (the Run panel's section and the What-if menu).
void drawWhatIfSettings(PanelContext& c);
void drawTimelinePanel(PanelContext& c);
// The tab's content for `panel`.
void drawPanel(PanelContext& c, Panel panel);
void drawMapPanel(PanelContext& c);
void drawShapesPanel(PanelContext& c);
void drawHeatmapPanel(PanelContext& c);
void drawMaskPanel(PanelContext& c);
void drawAttentionPanel(PanelContext& c);
void drawLogitsPanel(PanelContext& c);
void drawLensPanel(PanelContext& c);
void drawComparePanel(PanelContext& c);
// A patch trace's layer x position (or head) heatmap; a click shows that stage in both runs.
void drawPatchingPanel(PanelContext& c);
// The what-if banner above the panels: shown when the run is an experiment, never for the model.
void drawWhatIfBanner(PanelContext& c);
void drawKvCachePanel(PanelContext& c);
// A batch trace's ubatch, KV cells, mask from the cells and context shift (state/batch_view.h).
void drawBatchPanel(PanelContext& c);
void drawTokensPanel(PanelContext& c);
void drawOutputPanel(PanelContext& c);
void drawChapterPanel(PanelContext& c);
void drawLogPanel(PanelContext& c);

// ImGui::Button (or SmallButton), which a script's `press LABEL` also clicks (ViewState::pressRequested).
bool button(ViewState& view, const char* label, bool small = false);

// SameLine when an item `width` wide still fits the line, else a new line.
void sameLineIfFits(float width);

// How far loading got, `width` wide: the reader's fraction, or while it has not said how much
// there is a block sweeping the bar (ImGui 1.86 draws a negative fraction as an empty bar).
void loadingBar(const LoadMeter& meter, float width);

// The pointer is over [a, b] of the current window (never while scripts ignore the mouse).
bool hoveringRect(ImVec2 a, ImVec2 b);

// `text` cut at a character boundary to fit `width` pixels.
std::string fitText(std::string text, float width);

// `text`, or as much as fits `width` followed by an ellipsis (for a tooltip to show it whole).
std::string elided(const std::string& text, float width);

// A path under the working directory for an export, named after what is exported.
std::string exportPath(const PanelContext& c, const std::string& what, const char* extension);
// "Export PNG" for the current panel, right-aligned after the last item; hover shows the path written.
void exportPngButton(PanelContext& c, const std::string& what);

}  // namespace llama::viewer
