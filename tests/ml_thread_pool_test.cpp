#include <catch2/catch.hpp>

#include <atomic>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ml/thread_pool.h"

using llama::ml::ThreadPool;

namespace {

// Runs parallelFor over n and checks every index was visited exactly once.
bool coversEachIndexOnce(ThreadPool& pool, int64_t n, int64_t minChunk) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    pool.parallelFor(
        n,
        [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) hits[size_t(i)]++;
        },
        minChunk);
    for (auto& h : hits)
        if (h != 1) return false;
    return true;
}

}  // namespace

TEST_CASE("parallelFor covers every index exactly once", "[ml][thread_pool]") {
    for (int threads : {1, 2, 3, 5}) {
        ThreadPool pool(threads);
        REQUIRE(pool.threadCount() == threads);
        for (int64_t n : {1, 2, 7, 64, 1000, 4099})
            for (int64_t minChunk : {1, 3, 100, 5000}) REQUIRE(coversEachIndexOnce(pool, n, minChunk));
    }
}

TEST_CASE("parallelFor gives each thread a home range: the caller starts at index 0 and no chunk crosses a home's edge", "[ml][thread_pool]") {
    // A thread writes the same part of a result in every call (thread_pool.cpp says why).
    for (int threads : {2, 3}) {
        ThreadPool pool(threads);
        const int64_t n = 999;
        for (int round = 0; round < 200; ++round) {
            std::atomic<bool> crossed = false, frontElsewhere = false;
            const auto caller = std::this_thread::get_id();
            pool.parallelFor(n, [&](int64_t b, int64_t e) {
                for (int h = 1; h < threads; ++h)
                    if (b < n * h / threads && e > n * h / threads) crossed = true;
                if (b == 0 && std::this_thread::get_id() != caller) frontElsewhere = true;
            });
            REQUIRE_FALSE(crossed);
            REQUIRE_FALSE(frontElsewhere);
        }
    }
}

TEST_CASE("parallelFor runs a loop too small for two chunks on the calling thread, whole", "[ml][thread_pool]") {
    // No worker takes a loop too small to split (thread_pool.cpp says why), polling or not.
    ThreadPool pool(2);
    const auto caller = std::this_thread::get_id();
    for (int round = 0; round < 1000; ++round) {
        int calls = 0;
        bool elsewhere = false;
        pool.parallelFor(64, [&](int64_t b, int64_t e) {
            calls++;
            elsewhere = elsewhere || std::this_thread::get_id() != caller || b != 0 || e != 64;
        }, 33);
        REQUIRE(calls == 1);
        REQUIRE_FALSE(elsewhere);
    }
}

TEST_CASE("parallelFor from three threads at once", "[ml][thread_pool]") {
    // As the model's Q, K, V tasks do: three callers share one pool of two slots.
    ThreadPool pool(2);
    for (int round = 0; round < 50; ++round) {
        std::vector<std::future<bool>> callers;
        for (int64_t n : {2048, 256, 257})
            callers.push_back(std::async(std::launch::async, [&pool, n] { return coversEachIndexOnce(pool, n, 16); }));
        for (auto& c : callers) REQUIRE(c.get());
    }
}

TEST_CASE("parallelFor never runs more chunks at once than the pool has slots", "[ml][thread_pool]") {
    ThreadPool pool(2);
    std::atomic<int> running = 0, peak = 0;
    auto work = [&] {
        pool.parallelFor(64, [&](int64_t, int64_t) {
            int now = ++running;
            int seen = peak;
            while (now > seen && !peak.compare_exchange_weak(seen, now)) {
            }
            volatile double spin = 0;
            for (int i = 0; i < 20000; ++i) spin = spin + i;
            --running;
        });
    };
    auto a = std::async(std::launch::async, work), b = std::async(std::launch::async, work),
         c = std::async(std::launch::async, work);
    a.get();
    b.get();
    c.get();
    REQUIRE(peak <= 2);
}

TEST_CASE("parallelFor nested calls run inline and exceptions reach the caller", "[ml][thread_pool]") {
    ThreadPool pool(3);
    std::atomic<int64_t> total = 0;
    pool.parallelFor(8, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i)
            pool.parallelFor(10, [&](int64_t b2, int64_t e2) { total += e2 - b2; });
    });
    REQUIRE(total == 80);

    REQUIRE_THROWS_WITH(pool.parallelFor(100,
                                         [](int64_t b, int64_t) {
                                             if (b == 0) throw std::runtime_error("chunk failed");
                                         }),
                        "chunk failed");
    REQUIRE(coversEachIndexOnce(pool, 100, 1));  // still usable afterwards
    REQUIRE_THROWS_AS(ThreadPool(0), std::invalid_argument);
}

TEST_CASE("The global pool's size is set once", "[ml][thread_pool]") {
    ThreadPool& pool = ThreadPool::global();
    REQUIRE(pool.threadCount() >= 1);
    REQUIRE(&ThreadPool::global() == &pool);
    REQUIRE_NOTHROW(ThreadPool::configureGlobal(pool.threadCount()));
    REQUIRE_THROWS_AS(ThreadPool::configureGlobal(pool.threadCount() + 1), std::logic_error);
}
