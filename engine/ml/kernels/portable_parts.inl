// What the portable paths share (generic, and the browser's simd128): f16 and bf16 values read
// without F16C, the canonical sum's tree, the quantized kernels' block terms and the int16 panels'
// unpacking. Included by each such kernel file and compiled with its flags; internal linkage
// (x86_kernels.inl says why kernel files share no inline code).
#include <cstring>

#include "ml/kernels/canonical_sum.inl"
#include "ml/kernels/kernel_set.h"
#include "tensor/float16.h"

namespace llama::ml::kernels {

namespace {

float halfAt(const uint8_t* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return halfToFloatPortable(h);
}

}  // namespace
}  // namespace llama::ml::kernels

#include "ml/kernels/block_terms.inl"
#include "ml/kernels/int16_panels.inl"
