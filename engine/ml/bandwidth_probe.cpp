#include "ml/bandwidth_probe.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <new>

#include "ml/thread_pool.h"

#ifdef __AVX2__
#include <immintrin.h>
#endif

namespace llama::ml {

namespace {

// Four independent accumulators so the adds never wait on each other: the loop is limited by
// loads alone, like the decode kernel at its best.
float sumRange(const float* p, int64_t n) {
    int64_t i = 0;
    float total = 0;
#ifdef __AVX2__
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    for (; i + 32 <= n; i += 32) {
        s0 = _mm256_add_ps(s0, _mm256_load_ps(p + i));
        s1 = _mm256_add_ps(s1, _mm256_load_ps(p + i + 8));
        s2 = _mm256_add_ps(s2, _mm256_load_ps(p + i + 16));
        s3 = _mm256_add_ps(s3, _mm256_load_ps(p + i + 24));
    }
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    for (float v : lanes) total += v;
#endif
    for (; i < n; ++i) total += p[i];
    return total;
}

}  // namespace

BandwidthReport measureReadBandwidth(size_t bytes, int runs) {
    // Chunks of whole 4 KiB pages keep the AVX2 loads aligned.
    constexpr int64_t kPageFloats = 1024;
    int64_t n = int64_t(bytes / sizeof(float)) / kPageFloats * kPageFloats;
    auto release = [](float* p) { ::operator delete[](p, std::align_val_t(4096)); };
    std::unique_ptr<float[], decltype(release)> buf(
        static_cast<float*>(::operator new[](size_t(n) * sizeof(float), std::align_val_t(4096))), release);
    ThreadPool& pool = ThreadPool::global();
    // Touch every page first (in parallel, so first-touch spreads them), so runs measure reads, not page faults.
    pool.parallelFor(n / kPageFloats, [&](int64_t b, int64_t e) {
        std::fill(buf.get() + b * kPageFloats, buf.get() + e * kPageFloats, 1.0f);
    });

    BandwidthReport report;
    report.bytesPerRun = size_t(n) * sizeof(float);
    for (int r = 0; r < runs; ++r) {
        std::atomic<double> sink = 0;
        auto t0 = std::chrono::steady_clock::now();
        pool.parallelFor(n / kPageFloats, [&](int64_t b, int64_t e) {
            float s = sumRange(buf.get() + b * kPageFloats, (e - b) * kPageFloats);
            // Keeps the sum observable so the reads are not optimised away (a compare-exchange loop:
            // atomic<double>::fetch_add is missing from the browser build's libc++).
            for (double seen = sink.load(); !sink.compare_exchange_weak(seen, seen + s);) {
            }
        });
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        report.runsGBps.push_back(double(report.bytesPerRun) / seconds / 1e9);
        report.runsSeconds.push_back(seconds);
        report.runsSums.push_back(sink.load());
    }
    std::vector<double> sorted = report.runsGBps;
    std::sort(sorted.begin(), sorted.end());
    if (!sorted.empty()) report.medianGBps = sorted[sorted.size() / 2];
    return report;
}

}  // namespace llama::ml
