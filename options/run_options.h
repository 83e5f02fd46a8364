#pragma once
// The options llama-walkthrough and llama-viewer share, defined once: which model (--model,
// --synthetic, --tokenizer, --seed), the prompt and sampling (--prompt ... --presence-penalty),
// the what-if switches and --threads. Both binaries add them to their CLI::App with these functions,
// so the names, ranges and help text cannot drift apart.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "checked_number.h"
#include "session/session.h"

namespace llama::options {

// The ranges of the generation options, shared with the viewer's script commands of the same names.
namespace ranges {
IntegerRange maxTokens();
RealRange temperature();
IntegerRange topK();
RealRange topP();
RealRange minP();
RealRange repeatPenalty();
IntegerRange repeatLastN();
RealRange frequencyPenalty();  // and --presence-penalty
RealRange ropeTheta();
RealRange mirostatTau();
RealRange mirostatEta();
inline const char* seed = "a whole number from 0 to 18446744073709551615";
}  // namespace ranges

// What --model / --synthetic / --tokenizer name (model empty with --synthetic).
struct ModelChoice {
    std::string model;
    std::string synthetic;
    std::string tokenizer;
    std::vector<LoraFile> lora;  // --lora FILE[:SCALE], repeatable
    // The source the session facade loads; `seed` makes a preset's weights.
    ModelSource source(uint64_t seed) const;
};

// --model, --synthetic, --tokenizer, --lora and --seed (the seed also seeds sampling).
void addModelOptions(CLI::App& app, ModelChoice& choice, uint64_t& seed);
// --lora FILE[:SCALE], repeatable: LoRA adapters of the model (formats/gguf/gguf_lora.h).
void addLoraOption(CLI::App& app, std::vector<LoraFile>& files);
// -p/--prompt, --system, --chat, --completion, --allow-special, -n/--max-tokens, --temperature,
// --top-k, --top-p, --min-p, the repetition penalties, mirostat and the grammar options.
void addGenerationOptions(CLI::App& app, GenerationSettings& settings);
// The second half of those: -n/--max-tokens and everything sampling (for `batch`, whose prompts differ).
void addSamplingOptions(CLI::App& app, GenerationSettings& settings);
// --grammar FILE, --grammar-text GBNF, --json (one of them; a run's, not `batch`'s).
void addGrammarOptions(CLI::App& app, GenerationSettings& settings);
// --no-mask, --no-kv-cache, --rope-theta X, --no-rope, --ablate-head L:H, --skip-layer L,
// --compute-dtype and the control vectors.
void addWhatIfOptions(CLI::App& app, WhatIf& whatIf);
// --control-vector FILE[:SCALE] (repeatable) and --control-vector-layers A-B.
void addControlVectorOptions(CLI::App& app, WhatIf& whatIf);
// --threads N.
void addThreadsOption(CLI::App& app, int& threads);
// --ubatch N: the most tokens a forward pass takes (llama.cpp's -ub); a longer batch is split.
void addUbatchOption(CLI::App& app, int& nUbatch);
// --max-seq-len N: the context length, 1 to ModelArgs::kMaxPositions (the CLI and the page alike).
void addContextLengthOption(CLI::App& app, int& maxSeqLen);

}  // namespace llama::options
