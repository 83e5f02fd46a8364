#include "state/panel_labels.h"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "stages/numbering.h"

namespace llama::viewer {

std::string timelineLayerTitle(int layer) { return fmt::format("Layer {}", layerNumber(layer)); }

std::string timelineStepTitle(const TimelineStep& s, const HistorySnapshot& snap, const TraceRun* trace) {
    const int step = s.step;
    if (trace && s.ubatchRecord >= 0 && size_t(s.ubatchRecord) < trace->stages.size())
        if (const std::optional<TracedUBatch>& u = trace->stages[size_t(s.ubatchRecord)].ubatch) {
            auto count = [](int n, const char* what) { return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s"); };
            return fmt::format("Step {}: ubatch {} ({}, {})", step, s.ubatchNumber + 1, count(u->nTokens, "token"), count(u->nSeqs, "sequence"));
        }
    if (trace && trace->run.training)
        return fmt::format("Training step {}: window {} of {} ({} tokens), forward and backward", step, trace->run.training->window + 1,
                           trace->run.training->windows, trace->promptTokens.size());
    if (step != 0) return fmt::format("Step {}: decode 1 token", step);
    int seqLen = 0;
    for (const StepInfo& s : snap.steps)
        if (s.step == 0) seqLen = s.seqLen;
    if (seqLen == 0) seqLen = int(snap.promptTokens.size());
    return seqLen > 0 ? fmt::format("Step 0: prefill ({} tokens)", seqLen) : "Step 0: prefill";
}

std::string recordWhere(const StageRecord& r) {
    return fmt::format("{}{}, step {}", r.info().key, r.layer >= 0 ? ", " + layerLabel(r.layer) : "", r.step);
}

std::string stageCaption(const StageRecord& r, int head) {
    std::string out = fmt::format("stage {} {}", r.info().number, r.info().title);
    if (r.layer >= 0) out += " | " + layerLabel(r.layer);
    if (head >= 0) out += " | " + headLabel(head);
    return out + fmt::format(" | step {}", r.step);
}

std::string exportFileTag(const StageRecord* r, std::optional<int> layer, int head) {
    if (!r) return "";
    const int L = layer.value_or(r->layer);
    return fmt::format("-{}{}{}-s{}", r->info().key, L >= 0 ? "-" + layerAxisLabel(L) : "", head >= 0 ? fmt::format("-H{}", headNumber(head)) : "",
                       r->step);
}

std::string exportFileName(const ViewState& view, const StageRecord* current, const std::string& what, const char* extension) {
    std::optional<int> layer;
    int head = -1;
    if (view.panel == Panel::Attention) layer = view.attentionLayer, head = view.head;
    if (view.panel == Panel::Map && view.mapLayer >= 0) layer = view.mapLayer;
    return unusedPath(fmt::format("llama-viewer-{}{}.{}", what, exportFileTag(current, layer, head), extension));
}

std::string unusedPath(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(path, ec)) return path;
    const fs::path p(path);
    for (int n = 2;; ++n) {
        fs::path candidate = p.parent_path() / fmt::format("{}-{}{}", p.stem().string(), n, p.extension().string());
        if (!fs::exists(candidate, ec)) return candidate.string();
    }
}

std::string savedNote(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path absolute = fs::absolute(path, ec);
    return fmt::format("Saved {} in {}", fs::path(path).filename().string(), (ec ? fs::path(path) : absolute).parent_path().string());
}

std::string logLinePrefix(const StageRecord& r) {
    return fmt::format("s{} {:<4} {:>2}  ", r.step, r.layer >= 0 ? layerAxisLabel(r.layer) : "", r.info().number);
}

std::string compareColumnLabel(int column) { return column == 0 ? "out" : layerAxisLabel(column - 1); }

std::string breakpointLabel(const Breakpoint& b) {
    const StageInfo& info = stageInfo(b.stage);
    return fmt::format("{} {} ({})", info.number, info.key, b.layer ? layerLabel(*b.layer) : "every layer");
}

std::string heldLayerLabel(int layer) { return layer >= 0 ? "| " + layerLabel(layer) : ""; }

std::string attentionMissing(const StageRecord* record, int layer, int step, bool masked) {
    const char* stage = masked ? "scores_mask" : "scores_softmax";
    if (!record)
        return fmt::format("{} of step {} has not reached stage 13 ({}) yet: step on, or pick an earlier layer.", layerLabel(layer), step, stage);
    return fmt::format("{} of step {} passed stage 13 ({}), but its scores were dropped to bound memory: the viewer keeps every step's "
                       "attention while it is the current step, and the prefill's (step 0) up to 96 MB. Step 0 and the current step "
                       "show theirs; a trace (llama-walkthrough --trace FILE --trace-presoftmax) keeps every step's for the run page "
                       "(export-html).",
                       layerLabel(layer), step, stage);
}

std::string capturedCellLabel(bool maskedScores) {
    return maskedScores ? "engine's score + mask (step 3, before the softmax; bf16)" : "engine's probability (step 4, after the softmax; bf16)";
}

std::string mapHeading(int step, int stageLayer, int mapLayer, bool chosen, int layers, const std::optional<TraceTrainingInfo>& training) {
    const std::string where = training ? fmt::format("Training step {}, window {} of {}: forward and backward   ", training->step,
                                                     training->window + 1, training->windows)
                                       : fmt::format("Token step {} ({})   ", step, step == 0 ? "prefill" : "decode");
    if (stageLayer >= 0 || chosen) return where + layerLabel(mapLayer, std::max(layers, 1));
    return where + fmt::format("{} (the block shows {})", layerLabel(-1), layerLabel(mapLayer, std::max(layers, 1)));
}

std::string modelLabel(const std::string& format, const std::string& source) {
    if (format.empty() || format == source) return source;
    if (source.empty()) return format;
    return source.ends_with(")") ? source + ", " + format : source + " (" + format + ")";  // no "(replay) (trace of ...)
}

std::string displayPath(const std::string& path) {
    namespace fs = std::filesystem;
    if (path.empty()) return path;
    fs::path p = fs::path(path).lexically_normal();
    if (!p.has_filename()) p = p.parent_path();  // "dir/" names the directory
    std::error_code ec;
    const fs::path absolute = fs::weakly_canonical(fs::absolute(p, ec), ec);
    const fs::path cwd = fs::current_path(ec);
    if (!ec) {
        const fs::path relative = absolute.lexically_relative(cwd);
        if (!relative.empty() && *relative.begin() != "..") return relative.generic_string();
    }
    return p.filename().string();
}

std::optional<int> layerFromNumber(const std::string& text, const std::string& what) {
    if (text == "-" || text == "any") return std::nullopt;
    if (auto index = indexFromNumber(text)) return *index;
    throw std::invalid_argument(fmt::format("{}: '{}' is not a layer number (1 is the first layer, as the log counts; - for any layer)", what, text));
}

int headFromNumber(const std::string& text, const std::string& what) {
    if (text == "all") return -1;
    if (auto index = indexFromNumber(text)) return *index;
    throw std::invalid_argument(fmt::format("{}: '{}' is not a head number (1 is the first head; all for the grid of every head)", what, text));
}

}  // namespace llama::viewer
