#pragma once
// What the learner has selected, independent of drawing: the panel, the captured stage being
// looked at, the tensor and its slice, the attention layer/head/cell, breakpoints, UI scale.
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stages/step_controller.h"
#include "state/chapter_reader.h"
#include "state/patch_view.h"
#include "state/tensor_slice.h"
#include "state/what_if_editor.h"

namespace llama::viewer {

// Patching is offered only while a patch trace is loaded (`patch --trace`).
enum class Panel { Map, Shapes, Heatmap, Mask, Attention, Logits, Lens, KvCache, Tokens, Compare, Chapter, Batch, Patching };

const std::vector<Panel>& allPanels();
const char* panelTitle(Panel p);  // "Top logits"
const char* panelKey(Panel p);    // "logits", as scripts name it
std::optional<Panel> panelFromKey(std::string_view key);

struct AttentionCell {
    int row, col;
};

// The Run panel's breakpoint editor: the stage (index into the catalog) and layer (0-based; -1:
// every layer) of the next breakpoint.
struct BreakpointDraft {
    int stageIndex = int(StageId::ScoresSoftmax);
    int layer = -1;
};

// A heatmap's zoom and pan: the factor and the first row and column shown.
struct HeatmapZoom {
    float factor = 1, r0 = 0, c0 = 0;
};

struct ViewState {
    Panel panel = Panel::Map;  // the forward pass as a map, beside the timeline
    int selectedRecord = -1;  // -1 follows the engine (the latest captured stage)
    std::string tensorName;   // "" = the stage's first tensor
    SliceSpec slice;
    std::string sliceFor;     // "record/tensor" the slice was chosen for; another resets it
    int attentionLayer = 0;
    int mapLayer = -1;        // the layer of the stack the map shows; -1 follows the shown stage
    int head = -1;            // -1: the grid of every head
    bool showMaskedScores = false;  // pre-softmax scores (with the mask) instead of probabilities
    std::optional<AttentionCell> cell;
    std::optional<AttentionCell> cellBeforeClick;  // the cell explained before the last click (a double-click puts it back)
    std::optional<PatchCell> patchCell;  // the Patching panel's chosen cell
    float uiScale = 1.0f;
    float sweepTemperature = 1.0f;  // the logits panel's what-if temperature (the run keeps its own)

    // What the panels keep between frames, here rather than in the drawing code.
    BreakpointDraft breakpointDraft;
    WhatIfDraft whatIfDraft;
    float uiScaleDraft = 0, uiScaleShown = -1;    // the Display slider while dragged, and the scale it was set from
    int mapRevealed = -1, timelineRevealed = -1;  // the record the map and the timeline last scrolled into sight
    std::string exportNote;                       // where the last export went ("Saved NAME in FOLDER"), or why it failed
    double exportNoteTime = -1;                   // when (ImGui's clock; the menu bar shows it for a while)
    std::string lastSaved;                        // the path of the last file an export wrote
    // The KV cache check's verdict on every logit (session/kv_cache_check.h), and the trace of the
    // run with the cache it was made for (the Compare panel shows it while that trace is B).
    std::string kvCacheAgreement, kvCacheAgreementFor;
    std::string pngWritten;                       // the last panel PNG written
    // What the last frame drew, for scripts' `expect` (state/script_facts.h): was the Step button in
    // sight in the Run region, and were the panels a menu (their tabs did not fit)?
    bool stepButtonInSight = false, panelsAsMenu = false;
    bool runButtonsInSight = false;  // every Run/Step button whole inside the Run region
    bool compareLabelsBodySize = false;  // the Compare grid's last frame drew its labels at the body text's size
    std::string saveTraceReason;  // why File > Save trace is greyed ("" when it is not), as the menu says it
    std::vector<std::string> settingsNotInRun;  // what the banner said the run does not use (state/session_controls.h)
    // The Map panel's last frame: did it scroll sideways, were its smallest labels (arrows',
    // sections') at least the body text's size, were Q/K/V's shapes drawn whole (nullopt: not
    // drawn), and the first arrow's shape that was cut ("" when none)?
    bool mapScrollsSideways = false, mapLabelsBodySize = false;
    std::optional<bool> mapLaneShapesWhole;
    // The stack's layer tabs: on the block (else a row of buttons above the map), and whether
    // every other one at least is wide enough for its number.
    bool mapTabsOnBlock = true, mapLayerTabsReadable = false;
    std::string mapCutShape;
    std::map<unsigned, HeatmapZoom> heatmapZooms;  // by the heatmap's ImGui id
    // A script's `press LABEL` (scripts ignore the mouse): the button with that label acts on the
    // next frame it is drawn, as a click would, through the same code; cleared once it acted.
    std::string pressRequested;
    ChapterReader chapter;                        // what the Chapter panel shows; scripts follow links through it
};

// What the buttons, the keyboard shortcuts and scripts can do.
enum class Action { Run, Continue, Pause, Step, StepLayer, StepToken, Stop, Restart, ToggleBreakpoint, ToggleLayerBreakpoint };

// The keys the viewer binds, named here without a window toolkit (the app maps them to GLFW's).
enum class Key { F5, F6, F8, F9, F10, F11, F12, Right, Space, Enter, R, PageDown };
struct KeyChord {
    Key key;
    bool ctrl = false;
    bool shift = false;
    bool operator==(const KeyChord&) const = default;
};
std::string keyChordName(const KeyChord& k);  // "Ctrl+Right"
// Typing never produces an F-key; the other keys act only while no text field has the keyboard.
bool isFunctionKey(Key k);
// A chord that acts even while a text box has the keyboard: the F-keys, and Ctrl+R (no text box
// uses it), so a prompt just typed can be run at once.
bool actsWhileTyping(const KeyChord& k);

// The key table: every action, its keys (the debugger's F-key first, then the ones a laptop
// reaches without Fn) and what it does. The buttons, the keyboard handler and the help overlay
// all read it.
struct ActionInfo {
    Action action;
    const char* label;
    std::vector<KeyChord> keys;
    const char* help;
};
const std::vector<ActionInfo>& actionInfos();
const ActionInfo& actionInfo(Action a);
std::string shortcutText(const ActionInfo& a);  // "F10, Right, Space", as buttons and the help show it
// The action a key chord triggers, if any.
std::optional<Action> actionForKey(const KeyChord& chord);
// A key by its name as keyChordName writes it ("Ctrl+Right", "F10", "PageDown"), or nullopt.
std::optional<KeyChord> keyChordFromName(const std::string& name);

// Key presses become actions in the order they came, none lost: a presenter's clicker taps
// shorter than a frame, and a tap while the engine computes waits for the stage it leads to. A
// stepping action (Step, Step layer, Step token, Continue) waits until the engine was held again
// after the last one (or is no longer running); the others act at once.
class ActionQueue {
public:
    void push(Action a) { queue_.push_back(a); }
    // The action to perform now, if any. `holds`: SessionStatus::holds; `active`: a run is going
    // (computing or held).
    std::optional<Action> next(uint64_t holds, bool active);
    size_t pending() const { return queue_.size(); }
    // Nothing waits, and the last stepping action has arrived (the engine held since, or done).
    bool settled(uint64_t holds, bool active) const { return queue_.empty() && (!waitingFrom_ || !active || holds > *waitingFrom_); }
    void clear() { queue_.clear(), waitingFrom_.reset(); }

private:
    std::deque<Action> queue_;
    std::optional<uint64_t> waitingFrom_;  // the holds count when the last stepping action was performed
};

inline constexpr float kMinUiScale = 1.0f, kMaxUiScale = 2.5f;

// The Patching panel's click: the cell chosen, and its stage in the clean run (the replay) shown.
void selectPatchCell(ViewState& view, const PatchGrid& grid, const TraceRun& clean, PatchCell cell);

// Adds a breakpoint at stage (and layer, if given) or removes it if it is there; true if added.
bool toggleBreakpoint(std::vector<Breakpoint>& breakpoints, StageId stage, std::optional<int> layer);
bool hasBreakpoint(const std::vector<Breakpoint>& breakpoints, StageId stage, std::optional<int> layer);

}  // namespace llama::viewer
