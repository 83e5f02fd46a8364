#include "state/script_state_commands.h"

#include <fmt/format.h>

#include <stdexcept>
#include <unordered_map>

#include "options/run_options.h"
#include "stages/stage_catalog.h"
#include "state/panel_labels.h"

namespace llama::viewer {

namespace {

const options::IntegerRange kLayerOrStep{0, 1 << 24, "a number from 0 to 16777216"};
// --ablate-head/--skip-layer's 1-based numbers, or "off" for --rope-theta
bool isOff(const std::string& s) { return s == "off"; }
bool onOff(const ScriptCommand& c) {
    if (c.args[0] != "on" && !isOff(c.args[0]))
        throw std::invalid_argument(fmt::format("expected on or off, got '{}'", c.args[0]));
    return c.args[0] == "on";
}

using S = RunSettings;
using V = ViewState;
using C = ScriptCommand;
using Handler = void (*)(const C&, S&, V&);

const std::unordered_map<std::string_view, Handler>& handlers() {
    static const std::unordered_map<std::string_view, Handler> table = {
        {"mode", [](const C& c, S& s, V&) {
             if (c.args[0] != "chat" && c.args[0] != "completion") throw std::invalid_argument("mode chat | completion");
             s.mode = c.args[0] == "chat" ? PromptMode::Chat : PromptMode::Completion;
         }},
        {"system", [](const C& c, S& s, V&) { s.system = c.args[0]; }},
        {"prompt", [](const C& c, S& s, V&) { s.prompt = c.args[0]; }},
        {"max-tokens", [](const C& c, S& s, V&) { s.maxTokens = scriptInt(c.args[0], c, options::ranges::maxTokens()); }},
        {"temperature", [](const C& c, S& s, V&) { s.sampling.temperature = scriptFloat(c.args[0], c, options::ranges::temperature()); }},
        {"top-k", [](const C& c, S& s, V&) { s.sampling.topK = scriptInt(c.args[0], c, options::ranges::topK()); }},
        {"top-p", [](const C& c, S& s, V&) { s.sampling.topP = scriptFloat(c.args[0], c, options::ranges::topP()); }},
        {"min-p", [](const C& c, S& s, V&) { s.sampling.minP = scriptFloat(c.args[0], c, options::ranges::minP()); }},
        {"seed", [](const C& c, S& s, V&) { s.sampling.seed = options::parseUnsigned(c.args[0], options::ranges::seed); }},
        {"repeat-penalty", [](const C& c, S& s, V&) { s.sampling.repeatPenalty = scriptFloat(c.args[0], c, options::ranges::repeatPenalty()); }},
        {"repeat-last-n", [](const C& c, S& s, V&) { s.sampling.repeatLastN = scriptInt(c.args[0], c, options::ranges::repeatLastN()); }},
        {"frequency-penalty", [](const C& c, S& s, V&) { s.sampling.frequencyPenalty = scriptFloat(c.args[0], c, options::ranges::frequencyPenalty()); }},
        {"presence-penalty", [](const C& c, S& s, V&) { s.sampling.presencePenalty = scriptFloat(c.args[0], c, options::ranges::frequencyPenalty()); }},
        // The what-if switches, as on the command line (options/run_options.h): on | off, or a value.
        {"record-trace", [](const C& c, S& s, V&) { s.recordTrace = onOff(c); }},
        {"no-mask", [](const C& c, S& s, V&) { s.whatIf.noMask = onOff(c); }},
        {"no-kv-cache", [](const C& c, S& s, V&) { s.whatIf.noKvCache = onOff(c); }},
        {"no-rope", [](const C& c, S& s, V&) { s.whatIf.noRope = onOff(c); }},
        {"compute-dtype", [](const C& c, S& s, V&) {
             if (isOff(c.args[0])) s.whatIf.computeDType.reset();
             else s.whatIf.computeDType = parseComputeDType(c.args[0]);
         }},
        {"rope-theta", [](const C& c, S& s, V&) {
             if (isOff(c.args[0])) s.whatIf.ropeTheta.reset();
             else s.whatIf.ropeTheta = options::parseReal(c.args[0], options::ranges::ropeTheta());
         }},
        {"ablate-head", [](const C& c, S& s, V&) {
             if (isOff(c.args[0])) s.whatIf.ablateHeads.clear();
             else s.whatIf.ablateHeads.insert(options::parseLayerHead(c.args[0]));
         }},
        {"skip-layer", [](const C& c, S& s, V&) {
             if (isOff(c.args[0])) s.whatIf.skipLayers.clear();
             else s.whatIf.skipLayers.insert(scriptInt(c.args[0], c, {1, 1 << 24, "a layer from 1 upwards"}) - 1);
         }},
        {"layer", [](const C& c, S&, V& v) {
             const auto layer = layerFromNumber(c.args[0], "layer");
             if (!layer) throw std::invalid_argument("layer L: give the layer's number (1 is the first)");
             v.attentionLayer = *layer;
         }},
        {"head", [](const C& c, S&, V& v) {
             v.head = headFromNumber(c.args[0], "head");
             v.cell.reset();
         }},
        {"cell", [](const C& c, S&, V& v) { v.cell = AttentionCell{scriptInt(c.args[0], c, kScriptIndex), scriptInt(c.args[1], c, kScriptIndex)}; }},
        {"scores", [](const C& c, S&, V& v) {
             if (c.args[0] != "softmax" && c.args[0] != "masked") throw std::invalid_argument("scores softmax | masked");
             v.showMaskedScores = c.args[0] == "masked";
         }},
        {"select", [](const C& c, S&, V& v) { v.selectedRecord = scriptInt(c.args[0], c, kScriptIndex); }},
        {"tensor", [](const C& c, S&, V& v) { v.tensorName = c.args[0]; }},
        {"map-layer", [](const C& c, S&, V& v) {
             v.mapLayer = scriptInt(c.args[0], c, {0, 1 << 24, "a layer number (1 is the first; 0 follows the shown stage)"}) - 1;
         }},
    };
    return table;
}

}  // namespace

int scriptInt(const std::string& word, const ScriptCommand&, const options::IntegerRange& range) {
    return int(options::parseInteger(word, range));
}

float scriptFloat(const std::string& word, const ScriptCommand&, const options::RealRange& range) {
    return options::parseFloat(word, range);
}

bool isStateCommand(std::string_view name) { return handlers().count(name) > 0; }

void applyStateCommand(const ScriptCommand& c, RunSettings& settings, ViewState& view) { handlers().at(c.name)(c, settings, view); }

Breakpoint breakpointArgs(const ScriptCommand& c) {
    const StageInfo* info = findStage(c.args[0]);
    if (!info) throw std::invalid_argument("no stage '" + c.args[0] + "' (use the catalog's keys, e.g. scores_softmax)");
    Breakpoint b{info->id, std::nullopt, std::nullopt};
    if (c.args.size() > 1) b.layer = layerFromNumber(c.args[1], c.name);
    if (c.args.size() > 2) b.step = scriptInt(c.args[2], c, kLayerOrStep);
    return b;
}

bool breakpointMatches(const Breakpoint& b, const HeldAt& h) {
    return b.stage == h.stage && (!b.layer || *b.layer == h.layer) && (!b.step || *b.step == h.step);
}

}  // namespace llama::viewer
