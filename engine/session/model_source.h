#pragma once
// Where a model comes from, as the front ends name it: model files (Meta's directory, Hugging
// Face's directory, a GGUF file or a llama2.c checkpoint, told apart once here and handed to
// that format's loader in formats/) or a synthetic preset with its seed. One loader for every
// front end, dry runs included.
#include <cstdint>
#include <string>
#include <vector>

#include "formats/named_tensor.h"
#include "generate/sampler.h"
#include "model/model.h"

namespace llama {

struct ModelSource {
    enum class Kind { Files, Synthetic } kind = Kind::Files;
    std::string pathOrPreset;
    uint64_t seed = SamplingSettings{}.seed;  // synthetic weights; a run's default sampling seed
    // A synthetic preset's tokenizer file (tokenizer/tokenizer_file.h; empty: a
    // byte tokenizer of the preset's family), or a llama2.c checkpoint's tokenizer.bin (empty:
    // the one beside it).
    std::string tokenizer = {};
    // LoRA adapters (--lora FILE[:SCALE], formats/gguf/gguf_lora.h), read and checked against the
    // model as it loads, before anything runs.
    std::vector<LoraFile> lora = {};
    // The path, or "synthetic preset 'tiny' (random weights)".
    std::string describe() const;
    // Everything that decides the model a load gives: the kind, the path or preset, the tokenizer
    // and a preset's seed (not a file model's: that seed only samples). Equal keys load the same
    // model, so a front end that keeps its model between runs (the live page) reloads on any other.
    std::string loadKey() const;
};

struct LoadOptions {
    // A dry run: weights with shapes and dtypes but no bytes. Of model files only params.json
    // and tokenizer.model are read, so Llama 3.1 8B's shapes are shown without its 16 GB.
    bool shapesOnly = false;
    int maxSeqLen = 0;      // 0: the model's own context length
    LoadProgress progress = {};  // follows the weights being read in
};

// Errors name the path and what was looked for.
Model loadModelSource(const ModelSource& source, const LoadOptions& options = {});

// Refuses, before anything is allocated, a context of args.max_seq_len positions (every
// sequence's cells, for a batch) that the machine or the process's address-space limit cannot
// hold; the message ends with `remedy` (which options make it smaller).
void requireRunMemory(const ModelArgs& args, const std::string& remedy);

// Model files, whichever of the four formats they are, with their weights. Errors name the path
// and what was looked for; progress(done, total) follows the weights being read into memory.
Model loadModel(const std::string& path, const LoadProgress& progress = {});

}  // namespace llama
