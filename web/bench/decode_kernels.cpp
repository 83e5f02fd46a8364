// The quantized decode dot products (Q8_0, Q4_0, Q4_K, Q6_K) of each kernel path a WebAssembly module has (generic,
// simd128, and relaxed-simd in the relaxed modules), timed alone under Node on one
// TinyLlama-shaped matrix (5632 rows of 2048: the feed-forward's), with x as one decode row. Each
// path's results are first compared with the generic path's bits at 1 to 4 x rows. Not a test (the
// kernel tests check the bits); what docs/web.md's kernel figures were measured with:
//   cmake --build build/wasm-single --target web_decode_kernels_bench
//   node build/wasm-single/bench/web_decode_kernels_bench.js
//   (the relaxed module's: build/wasm-single-relaxed, node --experimental-wasm-relaxed-simd as well)
// Prints each path's minimum and median over interleaved repeats, in ms a matrix.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "ml/kernels/activation_blocks.h"
#include "ml/kernels/activation_quant.h"
#include "ml/kernels/kernel_set.h"

using namespace llama::ml::kernels;

namespace {

constexpr int kRows = 5632, kColumns = 2048, kRepeats = 60;

double milliseconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

// x: four rows of random values in [-3, 3), quantized as the engine quantizes them.
void quantizeRows(const float* x, int64_t k, BlockQ8x32* out) { quantizeRowQ8x32(x, k, out); }
void quantizeRows(const float* x, int64_t k, BlockQ8x256* out) { quantizeRowQ8x256(x, k, out); }

// One format: random weight bytes with f16 scales of a normal size ([2^-4, 2^-3), so that no sum
// is infinite) at scaleOffset (and, for Q4_K, its dmin after it); false if a path's bits differ.
template <class XBlock>
bool bench(const char* name, int blockValues, int blockBytes, int scaleOffset, int scales,
           void (*KernelSet::*dot)(const uint8_t*, const XBlock*, int64_t, int, int64_t, float*), const std::vector<const KernelSet*>& paths) {
    std::mt19937 rng(1);
    const int64_t blocks = kColumns / blockValues;
    std::vector<float> values(4 * kColumns);
    for (float& v : values) v = std::uniform_real_distribution<float>(-3.0f, 3.0f)(rng);
    std::vector<XBlock> x(4 * blocks);
    quantizeRows(values.data(), 4 * kColumns, x.data());
    std::vector<uint8_t> w(size_t(kRows) * blocks * blockBytes);
    for (auto& byte : w) byte = uint8_t(rng());
    for (size_t b = 0; b < w.size() / blockBytes; ++b)
        for (int h = 0; h < scales; ++h) {
            const uint16_t half = uint16_t(0x2c00 + (rng() & 0x3ff));
            std::memcpy(&w[b * blockBytes + scaleOffset + 2 * h], &half, 2);
        }
    auto matrix = [&](const KernelSet* k, int nx, float* out) {
        for (int r = 0; r < kRows; ++r) (k->*dot)(w.data() + size_t(r) * blocks * blockBytes, x.data(), blocks, nx, blocks, out + 4 * r);
    };
    std::vector<float> expected(4 * kRows), got(4 * kRows);
    for (int nx = 1; nx <= 4; ++nx) {
        matrix(paths[0], nx, expected.data());
        for (const KernelSet* k : paths) {
            matrix(k, nx, got.data());
            if (std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) != 0) {
                std::printf("%s on %s with %d x rows: other bits than the generic path's\n", name, k->name, nx);
                return false;
            }
        }
    }
    std::vector<std::vector<double>> times(paths.size());
    for (int rep = 0; rep < kRepeats; ++rep)
        for (size_t i = 0; i < paths.size(); ++i) {
            const auto start = std::chrono::steady_clock::now();
            matrix(paths[i], 1, got.data());
            times[i].push_back(milliseconds(start));
        }
    const double gigabytes = double(w.size()) / 1e9;
    for (size_t i = 0; i < paths.size(); ++i) {
        std::sort(times[i].begin(), times[i].end());
        const double median = times[i][times[i].size() / 2];
        std::printf("%s %-13s min %6.3f ms  median %6.3f ms  %5.2f GB/s (the generic path's bits at 1-4 x rows)\n", name, paths[i]->name, times[i][0], median,
                    gigabytes / (median / 1e3));
    }
    return true;
}

}  // namespace

int main() {
    std::vector<const KernelSet*> paths{genericKernels(), simd128Kernels()};
    if (const KernelSet* relaxed = relaxedSimdKernels()) paths.push_back(relaxed);
    const bool same = bench<BlockQ8x32>("Q8_0", 32, 34, 0, 1, &KernelSet::dotQ8_0, paths) && bench<BlockQ8x32>("Q4_0", 32, 18, 0, 1, &KernelSet::dotQ4_0, paths) &&
                      bench<BlockQ8x256>("Q4_K", 256, 144, 0, 2, &KernelSet::dotQ4_K, paths) &&
                      bench<BlockQ8x256>("Q6_K", 256, 210, 208, 1, &KernelSet::dotQ6_K, paths);
    return same ? 0 : 1;
}
