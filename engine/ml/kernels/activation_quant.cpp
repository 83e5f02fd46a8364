#include "ml/kernels/activation_quant.h"

#include <cmath>

namespace llama::ml::kernels {

namespace {

// One block of n values: its scale, and q = round(x / d) in [-127, 127].
float quantizeBlock(const float* x, int n, int8_t* q) {
    float amax = 0.0f;
    // A plain comparison, not std::fmax (whose NaN rules keep the loop from being vectorized).
    for (int i = 0; i < n; ++i) amax = std::fabs(x[i]) > amax ? std::fabs(x[i]) : amax;
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
        blk.sum = 0;
        for (int8_t v : blk.q) blk.sum += v;
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

PackedX PackedActivations::group(int64_t g) const {
    return {q.data() + g * k * lanes, d.data() + g * blocks * lanes, sums.empty() ? nullptr : sums.data() + g * blocks * 8 * lanes};
}

PackedXBytes PackedActivations::byteGroup(int64_t g) const { return {bytes.data() + g * k * lanes, d.data() + g * blocks * lanes}; }

PackedActivations packActivationBytes(const float* x, int64_t rows, int64_t k, int lanes) {
    PackedActivations p;
    p.lanes = lanes;
    p.k = k;
    p.blocks = k / 32;
    p.groups = (rows + lanes - 1) / lanes;
    p.bytes.assign(size_t(p.groups * k * lanes), 128);  // padding rows are x = 0
    p.d.assign(size_t(p.groups * p.blocks * lanes), 0.0f);
    int8_t q[32];
    for (int64_t s = 0; s < rows; ++s) {
        const int64_t g = s / lanes, lane = s % lanes;
        uint8_t* gq = p.bytes.data() + g * k * lanes;
        for (int64_t b = 0; b < p.blocks; ++b) {
            p.d[size_t((g * p.blocks + b) * lanes + lane)] = quantizeBlock(x + s * k + b * 32, 32, q);
            for (int64_t i = 0; i < 32; ++i) {
                const int64_t at = b * 32 + i;  // group of four at / 4, lane, then at % 4
                gq[(at / 4) * 4 * lanes + 4 * lane + at % 4] = uint8_t(q[i] + 128);
            }
        }
    }
    return p;
}

PackedXSigned PackedActivations::signedGroup(int64_t g) const {
    return {reinterpret_cast<const int8_t*>(bytes.data()) + g * k * lanes, d.data() + g * blocks * lanes, sums.data() + g * (k / 16) * lanes};
}

PackedActivations packActivationsSigned(const float* x, int64_t rows, int64_t k, int64_t blockSize, int lanes) {
    PackedActivations p;
    p.lanes = lanes;
    p.k = k;
    p.blocks = k / blockSize;
    p.groups = (rows + lanes - 1) / lanes;
    p.bytes.assign(size_t(p.groups * k * lanes), 0);  // padding rows are x = 0
    p.d.assign(size_t(p.groups * p.blocks * lanes), 0.0f);
    p.sums.assign(size_t(p.groups * (k / 16) * lanes), 0);
    std::vector<int8_t> q(static_cast<size_t>(blockSize));
    for (int64_t s = 0; s < rows; ++s) {
        const int64_t g = s / lanes, lane = s % lanes;
        uint8_t* gq = p.bytes.data() + g * k * lanes;
        int16_t* sums = p.sums.data() + g * (k / 16) * lanes;
        for (int64_t b = 0; b < p.blocks; ++b) {
            p.d[size_t((g * p.blocks + b) * lanes + lane)] = quantizeBlock(x + s * k + b * blockSize, int(blockSize), q.data());
            for (int64_t i = 0; i < blockSize; ++i) {
                const int64_t at = b * blockSize + i;  // group of four at / 4, lane, then at % 4
                gq[(at / 4) * 4 * lanes + 4 * lane + at % 4] = uint8_t(q[size_t(i)]);
                sums[((at / 32) * lanes + lane) * 2 + (at / 16) % 2] += q[size_t(i)];
            }
        }
    }
    return p;
}

PackedActivations packActivations(const float* x, int64_t rows, int64_t k, int64_t blockSize, bool withSums, int lanes) {
    PackedActivations p;
    p.lanes = lanes;
    p.k = k;
    p.blocks = k / blockSize;
    p.groups = (rows + lanes - 1) / lanes;
    p.q.assign(size_t(p.groups * k * lanes), 0);
    p.d.assign(size_t(p.groups * p.blocks * lanes), 0.0f);
    if (withSums) p.sums.assign(size_t(p.groups * p.blocks * 8 * lanes), 0);
    std::vector<int8_t> q(static_cast<size_t>(blockSize));
    for (int64_t s = 0; s < rows; ++s) {
        const int64_t g = s / lanes, lane = s % lanes;
        int16_t* gq = p.q.data() + g * k * lanes;
        for (int64_t b = 0; b < p.blocks; ++b) {
            p.d[size_t((g * p.blocks + b) * lanes + lane)] = quantizeBlock(x + s * k + b * blockSize, int(blockSize), q.data());
            for (int64_t i = 0; i < blockSize; ++i) {
                const int64_t at = b * blockSize + i;  // pair at / 2, lane, then at % 2
                gq[(at / 2) * 2 * lanes + 2 * lane + at % 2] = q[size_t(i)];
            }
            if (withSums)
                for (int64_t j = 0; j < blockSize / 32; ++j) {
                    int sum = 0;
                    for (int64_t i = 0; i < 32; ++i) sum += q[size_t(32 * j + i)];
                    p.sums[size_t((((g * p.blocks + b) * 4 + j / 2) * lanes + lane) * 2 + j % 2)] = int16_t(sum);
                }
        }
    }
    return p;
}

}  // namespace llama::ml::kernels
