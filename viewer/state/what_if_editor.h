#pragma once
// The What-if editor (the Run panel's section, the What-if menu) without a window: the numbers
// typed for the next entry, and the one change a frame's clicks make to the settings it is given.
// It lists every skipped layer and ablated head; nothing is rewritten unless the learner adds or
// removes one, so what the command line or a script set stays.
#include "model/what_if.h"

namespace llama::viewer {

// 1-based, as the command line takes them (--skip-layer 3, --ablate-head 2:5).
struct WhatIfDraft {
    int skipLayer = 1;
    int ablateLayer = 1, ablateHead = 1;
};

struct WhatIfEdit {
    enum class Kind { None, AddSkip, RemoveSkip, AddAblation, RemoveAblation } kind = Kind::None;
    int layer = 0, head = 0;  // 0-based: the entry RemoveSkip or RemoveAblation removes
};

// Keeps the draft within the model (layers 1..layers, heads 1..heads), then applies the edit:
// Add* adds the draft's entry, Remove* the named one; None changes nothing.
void applyWhatIfEdit(WhatIf& w, WhatIfDraft& draft, const WhatIfEdit& edit, int layers, int heads);

}  // namespace llama::viewer
