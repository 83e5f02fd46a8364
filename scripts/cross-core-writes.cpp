// What a cache line costs to write when another core has it: the measurement behind the thread
// pool's home ranges and LinearTransformation's x made ready per thread (docs/speed.md, "Two
// threads on a small model"). One thread writes a buffer, a second reads it, the first writes it
// again; the second write is timed, beside a write of lines only the writer holds.
//   g++ -O2 -std=c++20 scripts/cross-core-writes.cpp -o /tmp/cross-core-writes -lpthread
//   /tmp/cross-core-writes 64        (KiB; medians of 2,000 rounds)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
    using Clock = std::chrono::steady_clock;
    const size_t bytes = size_t(argc > 1 ? std::atoi(argv[1]) : 64) * 1024;
    const int rounds = 2000;
    std::vector<char> shared(bytes, 1), own(bytes, 1);
    std::atomic<int> turn{0};
    std::atomic<long> sink{0};
    std::thread reader([&] {
        for (int r = 0; r < rounds; ++r) {
            while (turn.load() != 1) {
            }
            long s = 0;
            for (size_t i = 0; i < bytes; i += 64) s += shared[i];
            sink += s;
            turn.store(2);
        }
    });
    std::vector<double> again, alone;
    for (int r = 0; r < rounds; ++r) {
        std::memset(shared.data(), r, bytes);
        turn.store(1);
        while (turn.load() != 2) {
        }
        const auto t0 = Clock::now();
        std::memset(shared.data(), r + 1, bytes);  // lines the reader holds
        const auto t1 = Clock::now();
        std::memset(own.data(), r + 1, bytes);  // lines only this thread holds
        const auto t2 = Clock::now();
        again.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        alone.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
    }
    reader.join();
    std::sort(again.begin(), again.end());
    std::sort(alone.begin(), alone.end());
    std::printf("%zu KiB: written again after another core read it %.1f us, lines the writer holds alone %.1f us (medians)\n",
                bytes / 1024, again[rounds / 2], alone[rounds / 2]);
    return sink.load() == -1;
}
