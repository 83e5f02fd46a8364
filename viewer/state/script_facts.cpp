#include "state/script_facts.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "stages/numbering.h"

#include "state/batch_view.h"
#include "state/forward_map.h"
#include "state/panel_labels.h"
#include "state/patch_view.h"
#include "state/session_controls.h"
#include "state/timeline.h"

namespace llama::viewer {

namespace {
// The batch-* facts: what the Batch panel shows at the shown stage.
std::string batchFact(std::string_view name, const TraceRun* trace, const StageRecord* shown) {
    const std::optional<BatchView> v = trace && shown ? batchViewAt(*trace, size_t(shown->index)) : std::nullopt;
    if (!v) return "none";
    if (name == "batch-ubatch") return fmt::format("{} of {}", v->ubatchNumber + 1, ubatchCount(*trace));
    if (name == "batch-table") return ubatchText(*v->ubatch);
    if (name == "batch-cells") return v->slot ? cellsText(v->slot->cells) : "none";
    if (name == "batch-positions") return v->slot ? cellPositionsText(v->slot->cells) : "none";
    if (name == "batch-head") return v->slot ? std::to_string(v->slot->head) : "none";
    if (name == "batch-mask") return v->mask ? maskText(*v->mask) : "none";
    if (name == "batch-shift") return shiftsText(v->shifts);
    throw std::invalid_argument("no fact '" + std::string(name) + "' (--help-script lists the batch-* facts)");
}
}  // namespace

const std::vector<std::pair<std::string_view, std::string_view>>& scriptFactNames() {
    static const std::vector<std::pair<std::string_view, std::string_view>> names = {
        {"held-stage", "the stage key the engine is held at"},
        {"held-step", "the token step the engine is held at (0 is the prefill)"},
        {"shown-stage", "the stage key the panels show"},
        {"shown-step", "the token step the panels show"},
        {"logits-step", "the step whose top tokens the Top logits panel shows"},
        {"logits-sampled", "the token id that step sampled (none before stage 20)"},
        {"generated", "how many tokens the run has sampled"},
        {"run-seconds", "the last run's wall time in seconds from its start to its end, its trace written, holds included (none before)"},
        {"records", "how many stages the run has captured"},
        {"shown-record", "the index of the stage the panels show (the timeline's order, from 0)"},
        {"timeline-step", "the title of the timeline's entry for the shown step"},
        {"map-heading", "the Map panel's heading (token step, layer)"},
        {"map-backward", "a training step's trace: the Map's backward boxes that ran at the shown layer, \"N of M\"; else none"},
        {"gradient-norm", "a backward stage: the Tensor heatmap's tensor and its L2 norm as the panel gives it (|dScores| 0.0157), or none"},
        {"first-divergence", "the Compare panel's first divergence (stage key, layer, step), or none"},
        {"logits-agreement", "the compared runs' agreement at the logits stage, as the Compare panel says it"},
        {"kv-cache-agreement", "the KV cache check's verdict on every logit of every step (kv-cache-check), or none"},
        {"chapter-stages", "the stages the chapter shown links to, by key"},
        {"step-button", "in-sight or hidden: the Run region's Step button after the last frame"},
        {"panel-chooser", "tabs or menu: how the last frame offered the panels"},
        {"run-buttons", "in-sight or hidden: every Run/Step button whole in the Run region after the last frame"},
        {"map-sideways", "fits or scrolls: whether the Map panel's last frame scrolled sideways"},
        {"map-labels", "body-size or smaller: the Map's smallest labels (arrows', sections') against the body text"},
        {"qkv-shapes", "whole, cut or none: Q, K and V's shapes on the Map's last frame"},
        {"map-shapes", "whole, or the first arrow's shape the Map's last frame cut"},
        {"next-run", "this run's, or what the Run panel changed that only a restart uses (\"differs: prompt, control vector\")"},
        {"compare-labels", "body-size or smaller: the Compare grid's labels on its last frame (an export's too) against the body text"},
        {"compare-skipped", "the Compare grid's cells at the shown step that only one run has, as LAYER:A or LAYER:B per layer (3:A), or none"},
        {"source", "trace (a replay) or model (a live model)"},
        {"save-trace", "available, or why File > Save trace is greyed, as the menu says under it"},
        {"map-layer-tabs", "readable, or crushed: the Map's layer tabs on its last frame (on the block, or a row of buttons above it)"},
        {"attention-head", "the Attention panel's head: all (the grid of every head) or its number from 1"},
        {"last-saved", "the file the last export wrote (as written, relative to the working directory)"},
        {"batch-ubatch", "a batch trace: the ubatch the Batch panel shows, \"N of M\" (from 1)"},
        {"batch-table", "its tokens as seq:pos, * after those whose logits are wanted (\"1:0 1:1* 2:0*\")"},
        {"batch-cells", "the KV cells after find_slot: each one's sequences, . when free (\"1 1 2 2 .\")"},
        {"batch-positions", "the same cells' positions, . when free"},
        {"batch-head", "kv head: the first cell find_slot gave the ubatch"},
        {"batch-mask", "the mask from the cells, a row per token, 1 where it sees the cell (\"1100|0011\")"},
        {"batch-shift", "the last context shifts so far (one per sequence that shifted): seq S, the cells' positions before -> after; \"; \" between"},
        {"patch-grid", "a patch trace's grid: LAYERSxCOLUMNS and its site (8x11/block), or none"},
        {"patch-cell", "the Patching panel's chosen cell as its tooltip says it (layer 5, position 10 ...), or none"},
    };
    return names;
}

std::string scriptFact(std::string_view name, const HistorySnapshot& snap, const ViewState& view, const SessionStatus& status, int layers,
                       const TraceComparison* comparison, const TraceRun* trace, const PatchGrid* patch) {
    const StageRecord* shown = shownRecord(snap, view);
    auto orNone = [](bool has, auto value) { return has ? std::to_string(value) : std::string("none"); };
    if (name == "held-stage") return status.held ? std::string(stageInfo(status.held->stage).key) : "none";
    if (name == "held-step") return orNone(status.held.has_value(), status.held ? status.held->step : 0);
    if (name == "shown-stage") return shown ? std::string(shown->info().key) : "none";
    if (name == "shown-step") return orNone(shown != nullptr, shown ? shown->step : 0);
    const StepInfo* top = shown ? stepWithTop(snap.steps, shown->step) : nullptr;
    if (name == "logits-step") return orNone(top != nullptr, top ? top->step : 0);
    if (name == "logits-sampled") return orNone(top && top->sampled >= 0, top ? top->sampled : 0);
    if (name == "records") return std::to_string(snap.records.size());
    if (name == "run-seconds") return status.runSeconds ? fmt::format("{:.3f}", *status.runSeconds) : "none";
    if (name == "shown-record") return orNone(shown != nullptr, shown ? shown->index : 0);
    if (name == "generated") {
        int n = 0;
        for (const StepInfo& s : snap.steps) n += s.sampled >= 0;
        return std::to_string(n);
    }
    if (name == "map-heading") {
        if (!shown) return "none";
        if (layers == 0)
            for (const auto& r : snap.records) layers = std::max(layers, r->layer + 1);
        const std::optional<TraceTrainingInfo> training = trace ? trace->run.training : std::nullopt;
        const ForwardMapView v =
            viewForwardMap(buildForwardMap(layers, {0, false, training.has_value(), training && trainsLora(trace->stages)}), snap.records, shown, view.mapLayer);
        return mapHeading(v.step, v.currentLayer, v.layer, view.mapLayer >= 0, layers, training);
    }
    if (name == "map-backward") {
        if (!trace || !trace->run.training) return "none";
        const ForwardMap map = buildForwardMap(std::max(layers, trace->args.n_layers), {0, false, true, trainsLora(trace->stages)});
        const ForwardMapView v = viewForwardMap(map, snap.records, shown, view.mapLayer);
        int ran = 0, all = 0;
        for (size_t i = 0; i < map.boxes.size(); ++i)
            if (map.boxes[i].backward) ++all, ran += v.boxes[i].state == BoxState::Ran || v.boxes[i].state == BoxState::Current;
        return fmt::format("{} of {}", ran, all);
    }
    if (name == "gradient-norm") {
        if (!shown || shown->tensors.empty()) return "none";
        const CapturedTensor* t = shown->find(view.tensorName);
        if (!t) t = &shown->tensors[0];
        const std::string norm = gradientNorm(shown->message, t->name);
        return norm.empty() ? "none" : fmt::format("|{}| {}", t->name, norm);
    }
    if (name == "first-divergence") {
        if (!comparison) return "nothing compared";
        if (!comparison->diff.firstDivergence) return "none";
        const StageDifference& d = comparison->diff.stages[*comparison->diff.firstDivergence];
        return fmt::format("{} {} step {}", stageInfo(d.stage).key, layerLabel(d.layer), d.step);
    }
    if (name == "logits-agreement") {
        const auto agree = comparison ? agreementAt(comparison->diff, StageId::Logits) : std::nullopt;
        return agree ? agreementText(*agree, StageId::Logits) : "none";
    }
    if (name == "kv-cache-agreement") return view.kvCacheAgreement.empty() ? "none" : view.kvCacheAgreement;
    if (name == "chapter-stages") {
        std::string keys;
        for (StageId stage : ChapterReader::stagesIn(view.chapter.file())) keys += (keys.empty() ? "" : " ") + std::string(stageInfo(stage).key);
        return keys.empty() ? "none" : keys;
    }
    if (name == "step-button") return view.stepButtonInSight ? "in-sight" : "hidden";
    if (name == "panel-chooser") return view.panelsAsMenu ? "menu" : "tabs";
    if (name == "run-buttons") return view.runButtonsInSight ? "in-sight" : "hidden";
    if (name == "map-sideways") return view.mapScrollsSideways ? "scrolls" : "fits";
    if (name == "map-labels") return view.mapLabelsBodySize ? "body-size" : "smaller";
    if (name == "map-shapes") return view.mapCutShape.empty() ? "whole" : "cut: " + view.mapCutShape;
    if (name == "qkv-shapes") return !view.mapLaneShapesWhole ? "none" : *view.mapLaneShapesWhole ? "whole" : "cut";
    if (name == "next-run") {
        std::string list;
        for (const std::string& c : view.settingsNotInRun) list += (list.empty() ? "" : ", ") + c;
        return list.empty() ? "this run's" : "differs: " + list;
    }
    if (name == "compare-labels") return view.compareLabelsBodySize ? "body-size" : "smaller";
    if (name == "compare-skipped") {
        if (!comparison || !shown) return "none";
        const CompareGrid g = compareGrid(*comparison, shown->step);
        std::string out;
        for (size_t col = 0; col < (g.cells.empty() ? 0 : g.cells[0].size()); ++col) {
            CompareGrid::Only only = CompareGrid::Only::Neither;
            for (const auto& row : g.cells) only = only == CompareGrid::Only::Neither && col < row.size() ? row[col].only : only;
            if (only != CompareGrid::Only::Neither) out += fmt::format("{}{}:{}", out.empty() ? "" : " ", layerNumber(int(col) - 1), only == CompareGrid::Only::A ? "A" : "B");
        }
        return out.empty() ? "none" : out;
    }
    if (name == "source") return trace ? "trace" : "model";
    if (name == "save-trace") return view.saveTraceReason.empty() ? "available" : view.saveTraceReason;
    if (name == "map-layer-tabs") return view.mapLayerTabsReadable ? "readable" : "crushed";
    if (name == "attention-head") return view.head < 0 ? "all" : std::to_string(headNumber(view.head));
    if (name == "last-saved") return view.lastSaved.empty() ? "none" : view.lastSaved;
    if (name == "patch-grid") return patch ? fmt::format("{}x{}/{}", patch->layers, patch->columns, patch->site) : "none";
    if (name == "patch-cell") {
        if (!patch || !comparison || !view.patchCell) return "none";
        return patchCellText(*patch, *comparison->a, comparison->b, *view.patchCell);
    }
    if (name == "timeline-step") {
        if (shown)
            for (const TimelineStep& s : buildTimeline(snap.records))
                if (s.step == shown->step) return timelineStepTitle(s, snap, trace);
        return "none";
    }
    if (name.starts_with("batch-")) return batchFact(name, trace, shown);
    std::string known;
    for (const auto& [n, what] : scriptFactNames()) known += (known.empty() ? "" : ", ") + std::string(n);
    throw std::invalid_argument("no fact '" + std::string(name) + "' (expect knows " + known + ")");
}

}  // namespace llama::viewer
