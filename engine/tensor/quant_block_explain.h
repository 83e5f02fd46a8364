#pragma once
// One quantized block taken apart for a reader (`inspect --block`): which bytes hold what, and
// every weight as the same small formula w = a * q - b, where q is the integer the block stores
// for it and a, b come from the block's scales (and mins). Kept apart from quant_blocks.cpp,
// which decodes for speed: tests check that the two agree on every weight.
#include <cstdint>
#include <string>
#include <vector>

#include "tensor/dtype.h"

namespace llama {

struct BlockField {
    std::string name;    // as ggml names it: d, dmin, scales, qs, ql, qh
    size_t offset = 0;   // in the block
    size_t bytes = 0;
    std::string meaning;  // what the bytes are and, for scales, their decoded values
};

struct BlockWeight {
    int q = 0;       // the integer stored for the weight (4, 6 or 8 bits)
    float a = 0, b = 0;
    int group = 0;   // the sub-block whose scale (and min) it uses; 0 for one-scale formats
    float value() const { return a * float(q) - b; }
};

struct BlockExplanation {
    DType dtype;
    std::string formula;  // the format's own formula, e.g. "w = d * sc * q - dmin * m"
    std::vector<BlockField> fields;
    std::vector<BlockWeight> weights;  // dtypeBlockSize(dtype) of them
};

// `block` points at dtypeBlockBytes(t) bytes of a quantized type (Q8_0, Q4_0, Q4_K, Q6_K);
// throws std::invalid_argument for other types.
BlockExplanation explainBlock(DType t, const uint8_t* block);

}  // namespace llama
