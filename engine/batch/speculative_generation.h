#pragma once
// Speculative decoding on the batch machinery, greedy, as llama.cpp's llama-speculative does it
// at temperature 0: a small draft model proposes draftMax tokens one at a time, the target model
// checks them all in ONE batched forward pass (the last accepted token and the drafts, each
// wanting logits), and keeps the drafts up to the first one its own argmax disagrees with; its
// argmax there is the next token (a correction, or one more token when every draft was right).
// The rejected drafts' cells are removed from both caches with seq_rm. The text is the target's
// own greedy text; only the number of target passes changes.
// The draft is a second model with the same vocabulary (--draft-model) or the target's first N
// layers plus its final norm and output (--draft-layers, self-speculation: the logit lens's view).
#include <functional>
#include <string>
#include <vector>

#include "generate/generator.h"
#include "model/llama_transformer.h"
#include "tokenizer/tokenizer.h"

namespace llama {

class SpeculativeGenerator {
public:
    // nUbatch: the most tokens a forward pass takes (llama.cpp's -ub): a longer prompt is split.
    SpeculativeGenerator(const LlamaTransformer& target, const LlamaTransformer& draft, const Tokenizer& tokenizer, int draftMax, int nUbatch)
        : target_(target), draft_(draft), tokenizer_(tokenizer), draftMax_(draftMax), nUbatch_(nUbatch) {}

    // Greedy only: the caller refuses sampling settings. draftCtx is the draft's own context (its
    // own cells and caches); observers on targetCtx see the target's stages and each round's verdict.
    // The result's `speculative` counts the rounds, drafts and accepted drafts.
    GenerationResult generate(InferenceContext& targetCtx, InferenceContext& draftCtx, const std::vector<int32_t>& prompt, int maxTokens,
                              const std::function<void(const std::string&)>& onText) const;

private:
    const LlamaTransformer& target_;
    const LlamaTransformer& draft_;
    const Tokenizer& tokenizer_;
    int draftMax_, nUbatch_;
};

// The target's first `layers` layers with its final norm and output: a draft that shares the
// target's weights (nothing is copied but the layer list).
LlamaTransformer firstLayers(const LlamaTransformer& target, int layers);

// Throws std::invalid_argument when the draft's vocabulary is not the target's (size, or any
// token's text), naming the first difference: its drafts would be other tokens.
void requireSameVocabulary(const Tokenizer& target, const Tokenizer& draft, const std::string& draftName);

}  // namespace llama
