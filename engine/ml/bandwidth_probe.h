#pragma once
// Measures how fast this machine can stream memory into the cores, so the decode speed
// (which streams every weight once per token) can be judged against what is achievable.
#include <cstddef>
#include <vector>

namespace llama::ml {

struct BandwidthReport {
    double medianGBps = 0;       // GB = 1e9 bytes
    std::vector<double> runsGBps;  // each run, in the order measured
    size_t bytesPerRun = 0;        // the buffer actually read each run (rounded down to whole pages)
    std::vector<double> runsSeconds;  // each run's duration, so runsGBps can be checked against it
    std::vector<double> runsSums;     // each run's sum of the buffer (all 1.0f): the floats actually read
};

// Sums a `bytes`-sized buffer of floats with every thread of the global pool, `runs` times.
// The buffer is far larger than any cache, so every run reads from DRAM.
BandwidthReport measureReadBandwidth(size_t bytes = size_t(1) << 30, int runs = 5);

}  // namespace llama::ml
