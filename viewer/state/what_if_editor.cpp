#include "state/what_if_editor.h"

#include <algorithm>

namespace llama::viewer {

void applyWhatIfEdit(WhatIf& w, WhatIfDraft& draft, const WhatIfEdit& edit, int layers, int heads) {
    draft.skipLayer = std::clamp(draft.skipLayer, 1, std::max(1, layers));
    draft.ablateLayer = std::clamp(draft.ablateLayer, 1, std::max(1, layers));
    draft.ablateHead = std::clamp(draft.ablateHead, 1, std::max(1, heads));
    switch (edit.kind) {
        case WhatIfEdit::Kind::None: break;
        case WhatIfEdit::Kind::AddSkip: w.skipLayers.insert(draft.skipLayer - 1); break;
        case WhatIfEdit::Kind::RemoveSkip: w.skipLayers.erase(edit.layer); break;
        case WhatIfEdit::Kind::AddAblation: w.ablateHeads.insert({draft.ablateLayer - 1, draft.ablateHead - 1}); break;
        case WhatIfEdit::Kind::RemoveAblation: w.ablateHeads.erase({edit.layer, edit.head}); break;
    }
}

}  // namespace llama::viewer
