#pragma once
// The words the viewer's panels put on layers, heads, stages and files, made without a window
// so tests can read them. Layers and heads count from 1 (engine/stages/numbering.h, as the
// debug log, the stepper and `diff` do); token steps and positions from 0, as the log does.
#include <optional>
#include <string>

#include "state/capture_observer.h"
#include "state/run_history.h"
#include "state/timeline.h"
#include "stages/step_controller.h"
#include "state/view_state.h"
#include "trace/trace_reader.h"

namespace llama::viewer {

std::string timelineLayerTitle(int layer);         // "Layer 1": a layer's group in the stage timeline
// A token step's entry in the timeline: "Step 0: prefill (10 tokens)", "Step 3: decode 1 token"
// (the prefill's count from the prompt's tokens as soon as stage 2 has them). In a batch trace
// (`trace`), where a step is one ubatch's forward pass, what that ubatch holds, numbered from 1 as
// the Batch panel numbers it: "Step 1: ubatch 2 (6 tokens, 2 sequences)".
std::string timelineStepTitle(const TimelineStep& step, const HistorySnapshot& snap, const TraceRun* trace = nullptr);
std::string recordWhere(const StageRecord& r);     // "scores_softmax, layer 1, step 0"
// An exported panel's caption line: "stage 13 Scores: softmax | layer 1 | head 2 | step 0";
// head -1 (none chosen) leaves the head out.
std::string stageCaption(const StageRecord& r, int head = -1);
// The part of an exported file's name that says where: "-scores_softmax-L1-s0" ("" for none);
// `layer` (0-based) overrides the record's (the Attention panel's chosen layer), and a head
// (0-based, -1 for none) is named too: "-scores_softmax-L3-H5-s0".
std::string exportFileTag(const StageRecord* r, std::optional<int> layer = std::nullopt, int head = -1);
// The name an export from the panel `view` shows gets ("llama-viewer-attention-scores_softmax-L3-H5-s0.png"),
// numbered when taken (unusedPath): the Attention panel's own layer and head, the Map's layer.
std::string exportFileName(const ViewState& view, const StageRecord* current, const std::string& what, const char* extension);
// `path` when no file has that name, else the first free "stem-2.ext", "stem-3.ext", ...: an
// export never writes over an earlier one.
std::string unusedPath(const std::string& path);
// What the viewer says after writing a file: "Saved NAME in FOLDER" (the folder in full, so it
// can be found).
std::string savedNote(const std::string& path);
std::string logLinePrefix(const StageRecord& r);   // "s0 L1   13  ": the Log panel's column
std::string compareColumnLabel(int column);        // the Compare table's axis: column 0 "out", then "L1".. per layer
std::string breakpointLabel(const Breakpoint& b);  // "13 scores_softmax (layer 1)", "(every layer)"
std::string heldLayerLabel(int layer);
// Why the Attention panel has no scores for `layer` at `step`: `record` (the scores stage's, or
// nullptr) not reached yet, or reached and its tensors dropped to bound memory, and what to do.
std::string attentionMissing(const StageRecord* record, int layer, int step, bool masked);

// The attention cell pane's last line, naming the value the view shows: the engine's score + mask
// (step 3, "scores before softmax" mode) or its probability (step 4).
std::string capturedCellLabel(bool maskedScores);

// The Map panel's heading: "Token step 0 (prefill)   layer 3/8"; at a stage outside the layers
// (embedding, final norm, logits, sampling) it says so, and which layer the drawn block shows.
// `stageLayer` is the shown stage's layer (-1 outside), `mapLayer` the layer the block shows,
// `chosen` whether the learner picked it (a layer tab) rather than following the stage. A
// training step's trace (`training`) names the step and window instead of a token step.
std::string mapHeading(int step, int stageLayer, int mapLayer, bool chosen, int layers,
                       const std::optional<TraceTrainingInfo>& training = std::nullopt);             // "| layer 1" beside the held stage; "" outside the layers

// The model as the Run panel and export captions name it: where it came from, then its format,
// "assets/model (Meta consolidated.00.pth)" (just `source` before a model is loaded).
std::string modelLabel(const std::string& format, const std::string& source);

// A path as the viewer shows it: relative to the working directory when it lies inside it,
// else its last component (the model's or file's own name). Never the machine's absolute path.
std::string displayPath(const std::string& path);

// The layer and head numbers scripts and fields take, as the log counts them: "1" is the
// first; "-" (or "any") is any layer. Throws std::invalid_argument naming `what` otherwise.
std::optional<int> layerFromNumber(const std::string& text, const std::string& what);
int headFromNumber(const std::string& text, const std::string& what);  // "all" -> -1 (every head)

}  // namespace llama::viewer
