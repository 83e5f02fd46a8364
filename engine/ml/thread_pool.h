#pragma once
// One process-wide pool of compute threads shared by every op.
//
// The pool owns a fixed number of "compute slots" (the configured thread count). A thread
// must hold a slot to run a chunk of a split loop, so however many threads call parallelFor at
// once (the model runs Q, K and V as three std::async tasks), at most `threadCount()` threads run
// chunks at any moment and the cores are not oversubscribed (a loop too small to split runs on its
// caller, like the serial code between loops). The pool itself has
// threadCount() - 1 workers because the calling thread always works on its own job too.
// A caller whose chunks have all been handed out gives its slot back while it waits, so no
// slot sits idle while another job still has work.
// A decode step is hundreds of short parallel loops a few microseconds apart, so a thread that
// runs out of work first polls for a little while (only if a slot is free for it, so it never
// takes a core from a thread that holds one) before it sleeps: a futex sleep and wake-up per
// loop cost more than many loops' work.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace llama::ml {

class ThreadPool {
public:
    // `threads` compute slots (>= 1), threads - 1 worker threads.
    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    // More compute threads than this only add switching (and each one's stack): 4x the cores.
    static int maxThreads();
    // Sets the size of the global pool (from --threads), 1 to maxThreads(). Must be called before the first
    // global(); calling it later with a different count throws std::logic_error.
    static void configureGlobal(int threads);
    // The process-wide pool, created on first use (default: hardware_concurrency).
    static ThreadPool& global();

    int threadCount() const { return slots_; }

    // Calls fn(begin, end) over disjoint ranges covering [0, n), in parallel, and returns when
    // all are done. Ranges hold at least minChunk indices (except the last of a thread's home range,
    // thread_pool.cpp), so tiny loops are not split into chunks that cost more to schedule than
    // to run; a loop of fewer than 2 * minChunk indices runs on the calling thread, as serial code does.
    // Safe to call from several threads at once; a call from inside fn runs serially on the
    // calling thread (it already holds a slot). The first exception thrown by fn is rethrown.
    void parallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn, int64_t minChunk = 1);

private:
    struct Job;

    void workerLoop();
    void stop();  // tells the workers to finish and joins them
    // The oldest job with unclaimed chunks, or nullptr. Caller holds mutex_.
    Job* claimableJob(Job* preferred) const;
    // Runs one chunk of job with mutex_ released; returns with it held again.
    void runChunk(Job& job, std::unique_lock<std::mutex>& lock);
    // With mutex_ held: if a slot is free, releases the mutex and polls until done() or a while
    // has passed, then takes the mutex back.
    template <class Done> void pollBeforeSleeping(std::unique_lock<std::mutex>& lock, Done&& done);

    const int slots_;
    int freeSlots_;
    bool stopping_ = false;
    std::vector<Job*> jobs_;  // jobs that still have unclaimed chunks, oldest first
    std::atomic<size_t> claimable_{0};  // jobs_.size(), for polling without the mutex
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::thread> workers_;
};

}  // namespace llama::ml
