// The float step of the quantized kernels (kernel_set.h: one block's term from its exact integer
// sums). Included by every kernel file and compiled with its flags; internal linkage
// (x86_kernels.inl says why kernel files share no inline code).
#include <cstdint>

namespace llama::ml::kernels {

namespace {

// Q8_0, Q4_0, Q6_K.
inline float blockTerm(float dx, float dw, int32_t s) { return dx * (dw * float(s)); }
// Q4_K: m is the minimums' sum.
inline float blockTerm(float dx, float d, int32_t s, float dmin, int32_t m) { return dx * (d * float(s) - dmin * float(m)); }

}  // namespace
}  // namespace llama::ml::kernels
