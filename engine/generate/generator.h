#pragma once
// A single run, as the walkthrough makes it: prefill the whole prompt at startPos 0, then feed one
// token per step through the KV cache (generation_loop.h: until a stop token, max tokens, or the
// context is full).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "generate/chat_template.h"
#include "generate/sampler.h"
#include "generate/stop_reason.h"
#include "model/llama_transformer.h"

namespace llama {

// The tokens tensor (stage 2) is one row as long as the context, filled with this pad id (Meta's
// pad_id for Llama 2's and Llama 3's tokenizers: no token has it) after the tokens known so far.
constexpr int32_t kPadId = -1;
// The ids of such a row up to its first pad: the tokens it holds.
std::vector<int32_t> tokensBeforePad(const Tensor& row);

// Speculative decoding's counts (batch/speculative_generation.h).
struct SpeculativeStats {
    int rounds = 0;    // target passes after the prefill
    int drafted = 0;   // tokens the draft proposed
    int accepted = 0;  // of them, kept
    double acceptanceRate() const { return drafted ? double(accepted) / drafted : 0; }
};

struct GenerationResult {
    std::vector<int32_t> promptTokens;
    std::vector<int32_t> generatedTokens;
    std::string text;             // decoded generated text
    StopReason stopReason = StopReason::Running;
    double prefillSeconds = 0;
    double decodeSeconds = 0;     // all decode steps together
    int decodeSteps = 0;          // forward passes after the prefill (speculative: tokens they made)
    std::optional<SpeculativeStats> speculative;  // a speculative run's
};

class Generator {
public:
    Generator(const LlamaTransformer& transformer, const Tokenizer& tokenizer) : transformer_(transformer), tokenizer_(tokenizer) {}

    // Tokenizes the prompt, generates up to maxTokens, calls onText with each piece of complete
    // UTF-8 text as it becomes available.
    GenerationResult generate(InferenceContext& ctx, const Prompt& formatted, int maxTokens, Sampler& sampler,
                              const std::function<void(const std::string&)>& onText) const;

private:
    const LlamaTransformer& transformer_;
    const Tokenizer& tokenizer_;
};

}  // namespace llama
