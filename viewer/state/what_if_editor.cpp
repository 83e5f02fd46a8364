#include "state/what_if_editor.h"

#include <algorithm>
#include <exception>
#include <memory>

#include "formats/gguf/gguf_control_vector.h"

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

bool applyControlVectorDraft(WhatIf& w, WhatIfDraft& draft) {
    draft.error.clear();
    if (draft.controlVectorPath.empty()) {
        w.steering.reset();
        return true;
    }
    try {
        w.steering = loadSteering({{draft.controlVectorPath, draft.controlVectorScale}}, std::nullopt);
        return true;
    } catch (const std::exception& e) {
        draft.error = e.what();
        return false;
    }
}

bool applyGrammarDraft(GenerationSettings& g, WhatIfDraft& draft) {
    draft.error.clear();
    if (draft.grammarText.find_first_not_of(" \t\r\n") == std::string::npos) {
        g.grammar.reset();
        g.grammarSource.clear();
        return true;
    }
    try {
        g.grammar = std::make_shared<const Grammar>(parseGrammar(draft.grammarText, "grammar"));
        g.grammarSource = "grammar";
        return true;
    } catch (const std::exception& e) {
        draft.error = e.what();
        return false;
    }
}

}  // namespace llama::viewer
