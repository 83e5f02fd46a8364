// What the portable paths share (generic, and the browser's simd128, whose prefill x needs no
// rearranging either): f16 and bf16 values read without F16C, x passed to the BF16 dot products as
// it is, and the int16 panels' unpacking. Included by each such kernel file and compiled with its
// flags; internal linkage (x86_kernels.inl says why kernel files share no inline code).
#include <cstring>

#include "ml/kernels/kernel_set.h"
#include "tensor/float16.h"

namespace llama::ml::kernels {

namespace {

float halfAt(const uint8_t* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return halfToFloatPortable(h);
}

float bf16ToF32(uint16_t v) {
    const uint32_t bits = uint32_t(v) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

void prepareBF16(const float* x, int64_t k, float* prepared) { std::memcpy(prepared, x, size_t(k) * sizeof(float)); }

}  // namespace
}  // namespace llama::ml::kernels

#include "ml/kernels/int16_panels.inl"
