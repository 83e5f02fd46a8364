#pragma once
// The header of a llama2.c checkpoint (Karpathy's llama2.c: run.c, runq.c, export.py), all three
// versions:
//   legacy (run.c): seven int32 dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size,
//          seq_len; a negative vocab_size means the classifier is stored after the weights.
//   version 1: uint32 magic "ak42", int32 version 1, the seven fields, a shared-classifier byte,
//          zeros up to byte 256; float32 weights, the norms first.
//   version 2 (runq.c): as version 1 plus an int32 group size after the byte; int8 weights
//          with one float32 scale per group.
// The order of the weights after each header is in llama2c_layout.h.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "model/model_args.h"

namespace llama {

struct Llama2cHeader {
    int version = 0;  // 0: legacy
    int32_t dim = 0, hiddenDim = 0, nLayers = 0, nHeads = 0, nKvHeads = 0, vocabSize = 0, seqLen = 0;
    bool sharedClassifier = true;
    int32_t groupSize = 0;  // version 2 only
    size_t dataOffset = 0;  // where the first weight starts: 28 (legacy) or 256

    // What the model's args are (llama2.c's fixed norm eps 1e-5 and RoPE base 10000).
    ModelArgs args() const;
    // "llama2.c legacy (run.c)", "llama2.c version 1", "llama2.c version 2 (int8, groups of 64)".
    std::string formatName() const;
};

inline constexpr uint32_t kLlama2cMagic = 0x616b3432;  // "ak42" read as a little-endian uint32
inline constexpr size_t kLlama2cLegacyHeaderBytes = 28, kLlama2cHeaderBytes = 256;

// Parses and checks the header of `bytes` (a whole file): fields that describe a Llama model, a
// known version, a group size that divides every weight (version 2), and a file exactly as
// long as the header says. Errors name the file, the field or the offset, and what was expected.
Llama2cHeader readLlama2cHeader(std::span<const std::byte> bytes, const std::string& path);

// A llama2.c checkpoint: a regular file starting with the magic, or one whose first seven int32
// describe a model exactly the file's length (legacy files have no magic), or any *.bin file
// (so that a broken one gets llama2.c's errors, not "unknown format").
bool isLlama2cFile(const std::string& path);

}  // namespace llama
