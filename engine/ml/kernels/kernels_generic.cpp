// The portable path: plain C++ computing the canonical arithmetic that every SIMD path computes
// in its registers (docs/speed.md, "The same numbers on every machine"), so it gives their bits.
// Also the readable statement of what the SIMD files compute, and the path the goldens come from.
#include "ml/kernels/portable_parts.inl"

namespace llama::ml::kernels {

namespace {

// The canonical dot (ml/dot_kernels.h): element i into partial i % 16, then the tree.
void dotBF16(const float* x, int64_t ldx, int nx, const uint16_t* w, int64_t k, float* out) {
    for (int s = 0; s < nx; ++s) {
        const float* xs = x + s * ldx;
        float p[kPartials] = {};
        int64_t i = 0;
        for (; i + kPartials <= k; i += kPartials)
            for (int j = 0; j < kPartials; ++j) p[j] += xs[i + j] * bf16ToF32(w[i + j]);
        out[s] = finishDot(p, xs + i, w + i, k - i);
    }
}

float dotBF16Pair(const uint16_t* x, const uint16_t* w, int64_t k) {
    float p[kPartials] = {};
    int64_t i = 0;
    for (; i + kPartials <= k; i += kPartials)
        for (int j = 0; j < kPartials; ++j) p[j] += bf16ToF32(x[i + j]) * bf16ToF32(w[i + j]);
    return finishDot(p, x + i, w + i, k - i);
}

// The quantized kernels follow kernel_set.h's contract in the plainest way: each block's exact
// integer sum, then its term added to the row's sum (blockTerm, block_terms.inl).

// Q8_0: 34-byte blocks, f16 d then int8 q[32].
void dotQ8_0(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    for (int s = 0; s < nx; ++s) out[s] = 0.0f;
    for (int64_t b = 0; b < blocks; ++b, w += 34) {
        const float dw = halfAt(w);
        const auto* q = reinterpret_cast<const int8_t*>(w + 2);
        for (int s = 0; s < nx; ++s) {
            const BlockQ8x32& xb = x[s * ldx + b];
            int32_t sum = 0;
            for (int i = 0; i < 32; ++i) sum += int32_t(q[i]) * xb.q[i];
            out[s] += blockTerm(xb.d, dw, sum);
        }
    }
}

// Q4_0: 18-byte blocks, f16 d then 16 bytes: weight i in the low nibble of byte i, i + 16 in
// its high nibble; w = d * (q - 8).
void dotQ4_0(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    for (int s = 0; s < nx; ++s) out[s] = 0.0f;
    for (int64_t b = 0; b < blocks; ++b, w += 18) {
        const float dw = halfAt(w);
        const uint8_t* qs = w + 2;
        for (int s = 0; s < nx; ++s) {
            const BlockQ8x32& xb = x[s * ldx + b];
            int32_t sum = 0;
            for (int i = 0; i < 16; ++i) sum += ((qs[i] & 0x0f) - 8) * xb.q[i] + ((qs[i] >> 4) - 8) * xb.q[i + 16];
            out[s] += blockTerm(xb.d, dw, sum);
        }
    }
}

// Q4_K: 144-byte super-blocks (quant_blocks.h). Sub-block j has w = d * sc[j] * q - dmin * m[j], so
// its dot is d * sc[j] * sum(q * x) - dmin * m[j] * sum(x): the second sum is two of x's bsums.
void dotQ4_K(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    for (int s = 0; s < nx; ++s) out[s] = 0.0f;
    for (int64_t b = 0; b < blocks; ++b, w += 144) {
        const float d = halfAt(w), dmin = halfAt(w + 2);
        uint8_t sc[8], m[8];
        unpackQ4KScales(w + 4, sc, m);
        const uint8_t* qs = w + 16;
        for (int s = 0; s < nx; ++s) {
            const BlockQ8x256& xb = x[s * ldx + b];
            int32_t sum = 0, mins = 0;
            for (int pair = 0; pair < 4; ++pair) {  // sub-blocks 2 * pair (low nibbles) and 2 * pair + 1 (high)
                int32_t lo = 0, hi = 0;
                for (int l = 0; l < 32; ++l) {
                    lo += int32_t(qs[32 * pair + l] & 0x0f) * xb.q[64 * pair + l];
                    hi += int32_t(qs[32 * pair + l] >> 4) * xb.q[64 * pair + 32 + l];
                }
                sum += sc[2 * pair] * lo + sc[2 * pair + 1] * hi;
            }
            for (int j = 0; j < 8; ++j) mins += m[j] * (xb.bsums[2 * j] + xb.bsums[2 * j + 1]);
            out[s] += blockTerm(xb.d, d, sum, dmin, mins);
        }
    }
}

// Q6_K: 210-byte super-blocks (quant_blocks.h), w = d * scale[g] * (q - 32) in group g of 16.
void dotQ6_K(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    for (int s = 0; s < nx; ++s) out[s] = 0.0f;
    for (int64_t b = 0; b < blocks; ++b, w += 210) {
        const float d = halfAt(w + 208);
        const auto* scales = reinterpret_cast<const int8_t*>(w + 192);
        uint8_t q[256];  // once for every x row
        q6kValues(w, q);
        for (int s = 0; s < nx; ++s) {
            const BlockQ8x256& xb = x[s * ldx + b];
            int32_t sum = 0;
            for (int g = 0; g < 16; ++g) {
                int32_t group = 0;
                for (int i = 0; i < 16; ++i) group += (q[16 * g + i] - 32) * xb.q[16 * g + i];
                sum += scales[g] * group;
            }
            out[s] += blockTerm(xb.d, d, sum);
        }
    }
}

// Quantized prefill (kernel_set.h): each lane is one x row, its terms added in block order as in
// the dot kernels above.
constexpr int kLanes = 8, kPanelRows = 4;

void panel(BlockFormat f, const Int16Rows& w, int64_t r0, int nr, int64_t k, const PackedX& x, float* out) {
    const int64_t size = panelBlockSize(f), blocks = k / size;
    for (int r = 0; r < nr; ++r) {
        const int64_t row = r0 + r;
        const int16_t* wq = w.q + row * k;
        float acc[kLanes] = {};
        for (int64_t b = 0; b < blocks; ++b) {
            int32_t sum[kLanes] = {};
            for (int64_t i = b * size; i < (b + 1) * size; i += 2) {
                const int16_t* xv = x.q + (i / 2) * 2 * kLanes;
                for (int lane = 0; lane < kLanes; ++lane) sum[lane] += wq[i] * xv[2 * lane] + wq[i + 1] * xv[2 * lane + 1];
            }
            const int64_t at = row * blocks + b;
            const float* dx = x.d + b * kLanes;
            if (f == BlockFormat::Q4_K) {
                int32_t mins[kLanes] = {};
                for (int j = 0; j < 8; ++j)
                    for (int lane = 0; lane < kLanes; ++lane)
                        mins[lane] += w.mins[at * 8 + j] * x.sums[((b * 4 + j / 2) * kLanes + lane) * 2 + j % 2];
                for (int lane = 0; lane < kLanes; ++lane) acc[lane] += blockTerm(dx[lane], w.d[at], sum[lane], w.dmin[at], mins[lane]);
            } else {
                for (int lane = 0; lane < kLanes; ++lane) acc[lane] += blockTerm(dx[lane], w.d[at], sum[lane]);
            }
        }
        for (int lane = 0; lane < kLanes; ++lane) out[r * kLanes + lane] = acc[lane];
    }
}

const KernelSet kGeneric{"generic", dotBF16, dotBF16Pair, dotQ8_0, dotQ4_0, dotQ4_K, dotQ6_K, nullptr, nullptr, nullptr, kLanes, kPanelRows, unpackRows, panel, nullptr, nullptr, nullptr, nullptr};

}  // namespace

const KernelSet* genericKernels() { return &kGeneric; }

}  // namespace llama::ml::kernels
