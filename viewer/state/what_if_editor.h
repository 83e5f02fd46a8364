#pragma once
// The What-if editor (the Run panel's section, the What-if menu) without a window: the numbers
// typed for the next entry, and the one change a frame's clicks make to the settings it is given.
// It lists every skipped layer and ablated head; nothing is rewritten unless the learner adds or
// removes one, so what the command line or a script set stays.
#include <string>

#include "model/what_if.h"
#include "session/session.h"

namespace llama::viewer {

// 1-based, as the command line takes them (--skip-layer 3, --ablate-head 2:5).
struct WhatIfDraft {
    int skipLayer = 1;
    int ablateLayer = 1, ablateHead = 1;
    // The control vector and the grammar as typed, and why the last one was refused.
    std::string controlVectorPath;
    float controlVectorScale = 1.0f;
    std::string grammarText;
    std::string error;
};

struct WhatIfEdit {
    enum class Kind { None, AddSkip, RemoveSkip, AddAblation, RemoveAblation } kind = Kind::None;
    int layer = 0, head = 0;  // 0-based: the entry RemoveSkip or RemoveAblation removes
};

// Keeps the draft within the model (layers 1..layers, heads 1..heads), then applies the edit:
// Add* adds the draft's entry, Remove* the named one; None changes nothing.
void applyWhatIfEdit(WhatIf& w, WhatIfDraft& draft, const WhatIfEdit& edit, int layers, int heads);

// The draft's control vector file at its scale, every layer it has (--control-vector PATH:SCALE),
// replacing the one set; an empty path removes it. False, with draft.error saying why and the
// settings untouched, when the file is refused.
bool applyControlVectorDraft(WhatIf& w, WhatIfDraft& draft);
// The draft's GBNF as the next run's grammar (--grammar-text); empty text removes it. False, with
// draft.error giving the line and column, when it does not parse.
bool applyGrammarDraft(GenerationSettings& g, WhatIfDraft& draft);

}  // namespace llama::viewer
