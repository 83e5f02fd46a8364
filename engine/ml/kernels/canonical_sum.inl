// The canonical float dot product's scalar parts (ml/dot_kernels.h states the arithmetic), for the
// kernel files: each includes this and compiles it with its own flags, with internal linkage
// (x86_kernels.inl says why kernel files share no inline code with the rest of the program).
#include <cstdint>
#include <cstring>

namespace llama::ml::kernels {

namespace {

constexpr int kPartials = 16;

// bf16 is the top half of an f32.
inline float bf16ToF32(uint16_t v) {
    const uint32_t bits = uint32_t(v) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// p[j] += p[j + w] for w = 8, 4, 2, 1.
inline float sumPartials(float (&p)[kPartials]) {
    for (int w = kPartials / 2; w >= 1; w /= 2)
        for (int j = 0; j < w; ++j) p[j] += p[j + w];
    return p[0];
}

// The k % 16 tail into the stored partials (element j of the tail to partial j), then the tree.
inline float finishDot(float (&p)[kPartials], const float* x, const uint16_t* w, int64_t n) {
    for (int64_t j = 0; j < n; ++j) p[j] += x[j] * bf16ToF32(w[j]);
    return sumPartials(p);
}
inline float finishDot(float (&p)[kPartials], const uint16_t* x, const uint16_t* w, int64_t n) {
    for (int64_t j = 0; j < n; ++j) p[j] += bf16ToF32(x[j]) * bf16ToF32(w[j]);
    return sumPartials(p);
}

}  // namespace
}  // namespace llama::ml::kernels
