#include "ml/kernels/activation_quant.h"

#include <cmath>

namespace llama::ml::kernels {

namespace {

// One block of n values: its scale, and q = round(x / d) in [-127, 127].
float quantizeBlock(const float* x, int n, int8_t* q) {
    float amax = 0.0f;
    for (int i = 0; i < n; ++i) amax = std::fmax(amax, std::fabs(x[i]));
    const float d = amax / 127.0f;
    const float inv = d > 0.0f ? 1.0f / d : 0.0f;
    for (int i = 0; i < n; ++i) q[i] = int8_t(std::nearbyint(x[i] * inv));
    return d;
}

}  // namespace

void quantizeRowQ8x32(const float* x, int64_t k, BlockQ8x32* out) {
    for (int64_t b = 0; b < k / 32; ++b, x += 32) {
        BlockQ8x32& blk = out[b];
        blk.d = quantizeBlock(x, 32, blk.q);
        int32_t sum = 0;
        for (int8_t v : blk.q) sum += v;
        blk.dsum = blk.d * float(sum);
    }
}

void quantizeRowQ8x256(const float* x, int64_t k, BlockQ8x256* out) {
    for (int64_t b = 0; b < k / 256; ++b, x += 256) {
        BlockQ8x256& blk = out[b];
        blk.d = quantizeBlock(x, 256, blk.q);
        for (int j = 0; j < 16; ++j) {
            int sum = 0;
            for (int i = 0; i < 16; ++i) sum += blk.q[16 * j + i];
            blk.bsums[j] = int16_t(sum);
        }
    }
}

}  // namespace llama::ml::kernels
