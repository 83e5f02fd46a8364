#pragma once
// Seeded random-weight models with real Llama dimensions, built in memory: for tests, for
// benchmarks (tinyllama-1.1b) and for showing the shapes of models we cannot ship
// (llama3.1-8b, llama2-7b). Random weights: generated text is gibberish.
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"

namespace llama {

// Which tokenizer family the real model of a preset's size has: it decides the byte tokenizer's
// special tokens, and so the chat template (generate/chat_template.h).
enum class TokenizerFamily { Llama3, Llama2 };

// splitmix64: a tiny, well-mixed generator of 64 random bits per call (random weights here, and
// training's initial weights, train/initial_weights.h).
uint64_t splitmix64(uint64_t& state);

std::vector<std::string> syntheticPresets();
// A preset's tokenizer without --tokenizer: prompts encode byte by byte, and any generated id
// decodes to something visible ("[N]" fillers up to the vocabulary size).
std::shared_ptr<const Tokenizer> syntheticByteTokenizer(int vocabSize, TokenizerFamily family);
ModelArgs syntheticArgs(const std::string& preset);  // throws listing the presets
// shapesOnly: weights carry shapes and dtypes but no bytes (dry runs of 8B without 16 GB).
// Without a tokenizer, a byte tokenizer of the preset's family (Llama 3's specials for tiny and
// llama3.1-8b, Llama 2's for tinyllama-1.1b and llama2-7b); a given one must have the preset's
// vocabulary size (the caller checks it, naming the file: session/model_source.h).
Model makeSyntheticModel(const std::string& preset, uint64_t seed, bool shapesOnly, std::shared_ptr<const Tokenizer> tokenizer = nullptr);
// Every weight a Llama model with `args` has, named as Meta's checkpoints name them (a dry run of
// a real model directory uses them shape-only).
std::vector<std::pair<std::string, Tensor>> syntheticWeights(const ModelArgs& args, uint64_t seed, bool shapesOnly);

}  // namespace llama
