// Quantized prefill (LinearTransformation with 64 x rows: the panels of kernel_set.h) on each
// kernel path a WebAssembly module has (generic, simd128, and relaxed-simd in the relaxed
// modules), timed under Node on one TinyLlama-shaped matrix (5632 rows of 2048: the
// feed-forward's) in each integer format. Each path's result is first compared with the generic
// path's bits. Not a test (the kernel tests check the bits); what docs/web.md's prefill kernel
// figures were measured with:
//   cmake --build build/wasm-single --target web_prefill_panels_bench
//   node build/wasm-single/bench/web_prefill_panels_bench.js
//   (the relaxed module's: build/wasm-single-relaxed, node --experimental-wasm-relaxed-simd as well)
// Prints each SIMD path's minimum and median over interleaved repeats, in ms a product (the
// generic path, ten times slower, only gives the bits).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "formats/gguf/quantize.h"
#include "ml/kernels/kernel_set.h"
#include "ml/ops.h"

using namespace llama;

namespace {

constexpr int64_t kRows = 5632, kColumns = 2048, kTokens = 64;
constexpr int kRepeats = 15;

double milliseconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

bool bench(DType t, const std::vector<std::string>& paths) {
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 0.05f);
    std::vector<float> w(size_t(kRows * kColumns));
    for (float& v : w) v = normal(rng);
    const std::vector<uint8_t> bytes = quantize(t, w.data(), int64_t(w.size()));
    Tensor wq({kRows, kColumns}, t);
    std::memcpy(wq.mutableData<uint8_t>(), bytes.data(), bytes.size());
    Tensor x({kTokens, kColumns}, DType::F32);
    for (int64_t i = 0; i < x.numel(); ++i) x.mutableData<float>()[i] = std::uniform_real_distribution<float>(-3.0f, 3.0f)(rng);
    auto product = [&](const std::string& path) {
        ml::kernels::useKernels(path);
        return ml::LinearTransformation(x, wq);
    };
    const Tensor expected = product("generic");
    for (const std::string& path : paths) {
        const Tensor y = product(path);
        if (std::memcmp(y.data<float>(), expected.data<float>(), size_t(y.numel()) * sizeof(float)) != 0) {
            std::printf("%s on %s: other bits than the generic path's\n", dtypeName(t), path.c_str());
            return false;
        }
    }
    std::vector<std::string> timed;
    for (const std::string& path : paths)
        if (path != "generic") timed.push_back(path);
    std::vector<std::vector<double>> times(timed.size());
    for (int rep = 0; rep < kRepeats; ++rep)
        for (size_t i = 0; i < timed.size(); ++i) {
            const auto start = std::chrono::steady_clock::now();
            product(timed[i]);
            times[i].push_back(milliseconds(start));
        }
    for (size_t i = 0; i < timed.size(); ++i) {
        std::sort(times[i].begin(), times[i].end());
        std::printf("%s %-13s min %7.2f ms  median %7.2f ms  (the generic path's bits)\n", dtypeName(t), timed[i].c_str(), times[i][0],
                    times[i][times[i].size() / 2]);
    }
    return true;
}

}  // namespace

int main() {
    std::vector<std::string> paths = ml::kernels::supportedPaths();  // generic first
    bool same = true;
    for (DType t : {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K}) same = bench(t, paths) && same;
    return same ? 0 : 1;
}
