#pragma once
// The arrays of a llama2.c checkpoint in file order, with the names Meta's checkpoint gives the
// same tensors (the reader and the writer both walk this list, so they cannot disagree).
// Legacy: embeddings, then each kind of per-layer weight for all layers (attention norms, wq,
// wk, wv, wo, FFN norms, w1, w2, w3), the final norm, two RoPE tables (seq_len x head_dim/2,
// cos and sin, which run.c never reads), then the classifier when it is not shared.
// Versions 1 and 2: every norm first (attention, FFN, final), then embeddings, wq ... w3 and
// the unshared classifier; version 2 stores each of those as int8 followed by its scales.
#include <cstdint>
#include <string>
#include <vector>

#include "formats/llama2c/llama2c_header.h"
#include "tensor/tensor.h"

namespace llama {

struct Llama2cArray {
    enum class Kind { F32, Int8Groups, RopeTable };  // RopeTable: F32, skipped on reading
    std::string name;  // Meta's name ("layers.0.attention.wq.weight"); the RoPE tables: "freqs_cos", "freqs_sin"
    Shape shape;
    Kind kind = Kind::F32;
    int64_t numel() const;
    // Bytes in the file: 4 per float; version 2's int8 arrays 1 per weight + 4 per group.
    int64_t fileBytes(int32_t groupSize) const;
};

// Every array the header's file holds, in order. The header must have passed
// readLlama2cHeader's field checks (sizes then fit in int64).
std::vector<Llama2cArray> llama2cLayout(const Llama2cHeader& header);

// The file size the header implies.
int64_t llama2cFileBytes(const Llama2cHeader& header);

}  // namespace llama
