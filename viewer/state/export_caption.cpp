#include "state/export_caption.h"

#include <fmt/format.h>

#include "stages/numbering.h"

namespace llama::viewer {

std::string exportCaption(const CaptionFacts& f, size_t maxPromptChars) {
    std::string prompt = f.prompt;
    for (char& ch : prompt)
        if (ch == '\n') ch = ' ';
    if (prompt.size() > maxPromptChars) {
        prompt.resize(maxPromptChars);
        while (!prompt.empty() && (static_cast<unsigned char>(prompt.back()) & 0xC0) == 0x80) prompt.pop_back();  // inside a character
        if (!prompt.empty()) prompt.pop_back();
        prompt += "...";
    }
    std::string s = fmt::format("model {}  |  prompt \"{}\"", f.model, prompt);
    if (f.step >= 0) s += fmt::format("  |  step {} ({})", f.step, f.step == 0 ? "prefill" : "decode");
    if (f.layer >= 0) s += "  |  " + (f.layers > 0 ? layerLabel(f.layer, f.layers) : layerLabel(f.layer));
    if (f.head >= 0) s += "  |  " + headLabel(f.head);
    if (f.stageNumber > 0) s += fmt::format("  |  stage {} {}", f.stageNumber, f.stageTitle);
    if (!f.whatIf.empty()) s += "  |  WHAT-IF " + f.whatIf;
    if (!f.grammar.empty()) s += "  |  GRAMMAR " + f.grammar;
    return s;
}

}  // namespace llama::viewer
