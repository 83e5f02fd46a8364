#include "state/script.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace llama::viewer {

const std::vector<ScriptCommandInfo>& scriptCommands() {
    static const std::vector<ScriptCommandInfo> commands = {
        {"load", 0, 2, "[model PATH | synthetic PRESET | trace FILE]: load (default: the one on the command line) and wait"},
        {"back-to-model", 0, 0, "File > Back to the model: from a trace to the live model it was opened over, its last run kept"},
        {"mode", 1, 1, "chat | completion"},
        {"system", 1, 1, "\"system prompt\" (chat mode)"},
        {"prompt", 1, 1, "\"prompt text\""},
        {"max-tokens", 1, 1, "N"},
        {"temperature", 1, 1, "T (0 = greedy)"},
        {"top-k", 1, 1, "K"},
        {"top-p", 1, 1, "P"},
        {"min-p", 1, 1, "P: keep tokens at least P times as likely as the most likely (0 = off)"},
        {"seed", 1, 1, "S"},
        {"repeat-penalty", 1, 1, "P: divide repeated tokens' positive logits by P (1 = off)"},
        {"repeat-last-n", 1, 1, "N: the penalties' window in tokens (0 = off, -1 = all)"},
        {"frequency-penalty", 1, 1, "F: subtract F per occurrence in the window"},
        {"presence-penalty", 1, 1, "P: subtract P once if present in the window"},
        {"record-trace", 1, 1, "on | off: live runs record their own trace (File > Save trace, Compare); off by default"},
        {"no-mask", 1, 1, "on | off: --no-mask, prefill without the causal mask"},
        {"no-kv-cache", 1, 1, "on | off: --no-kv-cache, recompute the whole sequence at every step"},
        {"no-rope", 1, 1, "on | off: --no-rope, queries and keys are not rotated"},
        {"compute-dtype", 1, 1, "bf16 | f32 | off: --compute-dtype, activations in another dtype than the weights choose"},
        {"rope-theta", 1, 1, "X | off: --rope-theta, another RoPE base frequency"},
        {"ablate-head", 1, 1, "LAYER:HEAD | off: --ablate-head (1-based; repeat for more heads; off clears them)"},
        {"skip-layer", 1, 1, "L | off: --skip-layer (1-based; repeat for more layers; off clears them)"},
        {"start", 0, 0, "start a run held at the first stage"},
        {"step", 0, 0, "next stage"},
        {"step-layer", 0, 0, "next layer"},
        {"tap", 1, 2, "KEY [N]: N presses of a key (F10, Ctrl+Right, PageDown, ...) in one frame, as a clicker's short taps; waits until each acted"},
        {"step-token", 0, 0, "next token: its logits stage (19), where the top logits and the logit lens exist"},
        {"continue", 0, 0, "run to the next breakpoint"},
        {"run", 0, 0, "run to the end (ignoring breakpoints) and wait for it"},
        {"run-background", 0, 0, "run to the end but go on with the script at once (e.g. measure-fps while it computes)"},
        {"step-to", 1, 3, "STAGE [LAYER [STEP]]: run until the engine is held there (LAYER as the log counts: 1 is the first, - any; STEP 0 is the prefill)"},
        {"breakpoint", 1, 2, "STAGE [LAYER]: LAYER 1 is the first, as the log counts (- or none: every layer)"},
        {"stop", 0, 0, "end the run"},
        {"restart", 0, 0, "start again with the current settings, held at the first stage"},
        {"panel", 1, 1, "map | shapes | heatmap | mask | attention | logits | lens | kv-cache | tokens | compare | chapter | batch | patching"},
        {"chapter", 1, 1, "TARGET: the Chapter panel opens a chapter or a section of it (08-tokenization.md#exercises), as a link does"},
        {"chapter-check", 1, 1, "N: open the Nth check of the chapter shown (1-based), as \"Show check\" does"},
        {"layer", 1, 1, "L: the layer the attention panel shows (1 is the first)"},
        {"map-layer", 1, 1, "L: the layer of the stack the map shows (1 is the first; 0 follows the shown stage)"},
        {"head", 1, 1, "H: enlarge head H in the attention panel (1 is the first; all: the grid of every head)"},
        {"cell", 2, 2, "ROW COL: explain this attention cell"},
        {"scores", 1, 1, "softmax | masked: post-softmax probabilities or pre-softmax scores"},
        {"patch-cell", 2, 2, "LAYER COLUMN: click the Patching panel's cell (1-based: a layer, then a position's column or a head)"},
        {"select", 1, 1, "RECORD: show the stage captured at this timeline index"},
        {"tensor", 1, 1, "NAME: the tensor the heatmap and shapes panels show"},
        {"scale", 1, 1, "UI scale, 1.0 - 2.5"},
        {"frames", 1, 1, "N: render N frames"},
        {"measure-fps", 1, 1, "SECONDS: render for this long and print the frame rate"},
        {"screenshot", 1, 1, "PATH.png: the whole window"},
        {"export-png", 1, 1, "PATH.png: the current panel, with a caption and no buttons (- : the Export button's name, numbered when taken)"},
        {"export-slide", 1, 1, "PATH.png: the current panel alone at 1920x1080, with a caption (- : as the menu names it)"},
        {"export-csv", 1, 1, "PATH.csv: the heatmap's 2-D slice (- : as the button names it)"},
        {"export-npy", 1, 1, "PATH.npy: the heatmap's whole tensor (- : as the button names it)"},
        {"save-trace", 1, 1, "PATH.trace | -: File > Save trace, the finished live run's trace (-: a free llama-viewer-run.trace)"},
        {"compare-trace", 1, 1, "PATH.trace: File > Compare with trace, the run shown (live: its saved trace) beside it, at the stage shown"},
        {"kv-cache-check", 0, 0, "after a finished no-kv-cache run: the same run with the cache, compared with it (the Compare panel)"},
        {"press", 1, 1, "\"LABEL\": click the button with this label on screen (\"< all heads\", \"ubatch >\"); waits for what it started; fails if none is drawn"},
        {"print", 1, 1, "\"text\" to stdout"},
        {"print-fact", 1, 1, "FACT: print \"FACT VALUE\" to stdout (run-seconds after a run: how long it took)"},
        {"expect", 2, 2, "FACT VALUE: fail the script unless FACT is VALUE (held-stage, shown-step, logits-step, ...: --help-script lists them)"},
        {"quit", 0, 0, "close the window"},
    };
    return commands;
}

namespace {
std::vector<std::string> splitWords(const std::string& line, const std::string& where) {
    std::vector<std::string> words;
    size_t i = 0;
    while (i < line.size()) {
        char c = line[i];
        if (c == ' ' || c == '\t' || c == '\r') { ++i; continue; }
        if (c == '#') break;
        std::string w;
        if (c == '"') {
            ++i;
            while (i < line.size() && line[i] != '"') {
                if (line[i] == '\\' && i + 1 < line.size()) {
                    ++i;
                    w += line[i] == 'n' ? '\n' : line[i];
                } else {
                    w += line[i];
                }
                ++i;
            }
            if (i >= line.size()) throw std::invalid_argument(where + ": unterminated \"quoted text\"");
            ++i;
        } else {
            while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') w += line[i++];
        }
        words.push_back(w);
    }
    return words;
}
}  // namespace

std::vector<ScriptCommand> parseScript(const std::string& text, const std::string& sourceName) {
    std::vector<ScriptCommand> out;
    std::istringstream in(text);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        std::string where = fmt::format("{}:{}", sourceName, n);
        auto words = splitWords(line, where);
        if (words.empty()) continue;
        ScriptCommand cmd{n, words[0], {words.begin() + 1, words.end()}};
        const ScriptCommandInfo* info = nullptr;
        for (const auto& c : scriptCommands())
            if (cmd.name == c.name) info = &c;
        if (!info) throw std::invalid_argument(fmt::format("{}: unknown command '{}'", where, cmd.name));
        int n_args = int(cmd.args.size());
        if (n_args < info->minArgs || n_args > info->maxArgs)
            throw std::invalid_argument(fmt::format("{}: '{}' takes {}", where, cmd.name, info->help));
        out.push_back(std::move(cmd));
    }
    return out;
}

std::vector<ScriptCommand> loadScript(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::invalid_argument("cannot read script " + path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return parseScript(buffer.str(), path);
}

}  // namespace llama::viewer
