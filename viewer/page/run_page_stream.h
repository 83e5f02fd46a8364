#pragma once
// The run page's data made a part at a time, as a run grows (the live page's held steps and its
// stage-by-stage reveal), or all at once (export-html: runPageData is one part holding every
// stage). A part (a "delta") holds only what the stages since the last part added or changed, so
// making it, sending it and applying it cost the same at a run's 256th token as at its first:
//   stages, tokens, steps   appended from stagesFrom / tokensFrom / stepsFrom (the last step
//                           sent is sent again: its top tokens and sampled token come later)
//   attention, masks        appended (one per scores_softmax / mask stage)
//   lens, map.views         replacing the step's (and layer's) earlier ones
//   run                     replacing the earlier one (the text so far, the stop reason)
// The first part ("reset": true) also has the run's fixed parts (model, catalog, the map's boxes).
// Float arrays are base64 in the JSON (a page's embedded data) or, for the live page, bytes beside
// it ({"dtype", "n", "at": byte offset}), posted to the page as a transferred ArrayBuffer.
#include <map>
#include <utility>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "page/run_page_data.h"
#include "stages/step_controller.h"
#include "state/capture_observer.h"
#include "state/trace_replay.h"

namespace llama::page {

// JSON has no infinity: -inf scores and masks are written as strings, as the trace does.
nlohmann::json pageNumber(double v);
// A file or folder by its own name: a page passed around never shows the folders of the machine
// that exported it.
std::string pageFileName(const std::string& path);
// Where a stage is, in the log's numbering (layers from 1); "" outside the layers.
std::string whereLabel(int layer);

// Float arrays as one part of the data carries them: base64 (floatArray) or appended to bytes.
class FloatArrays {
public:
    explicit FloatArrays(bool binary) : binary_(binary) {}
    nlohmann::json operator()(const std::vector<float>& values);
    // The bytes the binary arrays of the part so far were appended to; cleared.
    std::string takeBytes() { return std::exchange(bytes_, {}); }

private:
    bool binary_;
    std::string bytes_;
};

// Where the trace holds the xq and keys (--trace-presoftmax), every cell's q · k and every row's
// softmax terms of attention entry `a`, from explainAttentionRow (each row computed once).
std::optional<nlohmann::json> attentionArithmetic(const viewer::HistorySnapshot& snap, const nlohmann::json& a, const RunPageOptions& o,
                                                  FloatArrays& floats);

// What a trace still being written lacks (its END record) while its run is held: the prompt's
// tokens, the text so far and why the run is not over.
struct RunSoFar {
    std::vector<TraceToken> promptTokens;
    std::string text, stopReason;
};

class RunPageStream {
public:
    // `binary`: float arrays as bytes (takeBytes). A part's attention has no arithmetic: runPageData
    // adds it afterwards, within the page's budget; the live page asks for one attention's when a
    // reader opens one of its cells (arithmetic()).
    RunPageStream(RunPageOptions options, bool binary);

    // The part for stages [stagesSent(), upTo) of `run`, which may have grown since the last call
    // (stages appended, then END). Without `soFar`, a run not shown to its END is "stepping".
    nlohmann::json next(const TraceRun& run, size_t upTo, const RunSoFar* soFar = nullptr);
    std::string takeBytes() { return floats_.takeBytes(); }
    // The arithmetic of the attention recorded at (step, layer) among the stages sent, as
    // attentionArithmetic makes it; nullopt when no such attention was sent or the trace lacks its
    // xq and keys.
    std::optional<nlohmann::json> arithmetic(int step, int layer);

    size_t stagesSent() const { return stagesSent_; }
    const viewer::HistorySnapshot& snapshot() const { return snap_; }
    FloatArrays& floats() { return floats_; }
    const RunPageOptions& options() const { return options_; }

private:
    nlohmann::json header(const TraceRun& run);
    nlohmann::json tokensPart(const TraceRun& run, size_t upTo, const RunSoFar* soFar);

    RunPageOptions options_;
    FloatArrays floats_;
    std::optional<viewer::CaptureObserver> capture_;
    StepController controller_{StepController::Mode::Continue};
    viewer::ReplayCursor cursor_;
    viewer::HistorySnapshot snap_;
    std::map<int32_t, std::string> pieces_;  // every piece the stages so far name, by token id
    std::vector<TraceToken> sampled_;        // the sample stages' tokens so far
    std::vector<std::pair<TraceToken, bool>> tokensSent_;  // (token, generated)
    std::vector<int> cacheFill_;             // each layer's KV-cache fill after the stages sent
    size_t stagesSent_ = 0, stepsSent_ = 0;
};

}  // namespace llama::page
