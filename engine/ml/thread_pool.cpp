#include "ml/thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <csignal>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>

namespace llama::ml {

namespace {

// True while this thread holds a compute slot: a nested parallelFor then runs inline,
// because waiting for a second slot while holding one could deadlock.
thread_local bool tHoldsSlot = false;

std::once_flag gCreated;
std::unique_ptr<ThreadPool> gPool;

// Chunks shrink as a loop runs out ("guided" scheduling): each claim takes 1 / (kShare * slots)
// of what is left, at least minChunk. Big first chunks keep the claims few; small last ones
// mean no thread waits long for another's last chunk at the end of the loop, on a VM where one
// core may run slower than the other. Fixed chunks of n / 8 left a thread idle for half a chunk
// on average at the end of every decode matrix product (~100 us on a 23 MB BF16 matrix).
constexpr int64_t kShare = 2;

// How long a thread polls for work before it sleeps: longer than most gaps between two loops
// of a decode step, short next to a step. Measured on Q4_K_M decode (TinyLlama dimensions, 2
// threads, polling that yields): 50 us 25 tok/s, 500 us 27.5-29.4, 2000 us 26.7-28.6; without
// polling 21.5-22.4. Waking a sleeping thread costs tens of microseconds in a VM.
constexpr auto kPollFor = std::chrono::microseconds(500);

// The threads this machine runs at once; one where the build has no threads (the browser page
// without cross-origin isolation), so the pool never starts a worker.
int cores() {
#ifdef LLAMA_NO_THREADS
    return 1;
#else
    return std::max(1, int(std::thread::hardware_concurrency()));
#endif
}

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

}  // namespace

struct ThreadPool::Job {
    const std::function<void(int64_t, int64_t)>* fn;
    int64_t n;
    int64_t minChunk;
    int64_t next = 0;              // the first index not yet claimed
    std::atomic<int64_t> done = 0;  // indices whose chunk has finished
    std::exception_ptr error;

    bool claimable() const { return next < n; }
    bool finished() const { return done.load(std::memory_order_acquire) == n; }
};

ThreadPool::ThreadPool(int threads) : slots_(threads), freeSlots_(threads) {
    if (threads < 1 || threads > maxThreads())
        throw std::invalid_argument("thread count " + std::to_string(threads) + " is outside 1 to " + std::to_string(maxThreads()) +
                                    " (4x this machine's cores)");
    try {
        for (int i = 0; i + 1 < threads; ++i)
            workers_.emplace_back([this] {
                // Signals go to the thread that started the work: Ctrl-C must wake a stepper waiting
                // for a command on stdin, not a worker waiting for a chunk.
                sigset_t signals;
                sigemptyset(&signals);
                sigaddset(&signals, SIGINT);
                pthread_sigmask(SIG_BLOCK, &signals, nullptr);
                workerLoop();
            });
    } catch (const std::system_error& e) {
        // Threads already started must be joined: destroying a joinable std::thread terminates
        // (what --threads 1000 under a 4 GB address-space limit did).
        stop();
        throw std::runtime_error("ThreadPool: could not start " + std::to_string(threads) + " threads (started " +
                                 std::to_string(workers_.size() + 1) + "): " + e.what());
    }
}

ThreadPool::~ThreadPool() { stop(); }

void ThreadPool::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    for (auto& w : workers_) w.join();
}

void ThreadPool::configureGlobal(int threads) {
    bool created = true;
    std::call_once(gCreated, [&] {
        created = false;
        gPool = std::make_unique<ThreadPool>(threads);
    });
    if (created && gPool->threadCount() != threads)
        throw std::logic_error("ThreadPool: global pool already created with " + std::to_string(gPool->threadCount()) +
                               " threads, cannot change to " + std::to_string(threads));
}

int ThreadPool::maxThreads() {
#ifdef LLAMA_NO_THREADS
    return 1;
#else
    return 4 * cores();
#endif
}

ThreadPool& ThreadPool::global() {
    std::call_once(gCreated, [] {
        gPool = std::make_unique<ThreadPool>(cores());
    });
    return *gPool;
}

ThreadPool::Job* ThreadPool::claimableJob(Job* preferred) const {
    if (preferred && preferred->claimable()) return preferred;
    return jobs_.empty() ? nullptr : jobs_.front();
}

template <class Done>
void ThreadPool::pollBeforeSleeping(std::unique_lock<std::mutex>& lock, Done&& done) {
    if (freeSlots_ == 0 || done()) return;
    lock.unlock();
    const auto until = std::chrono::steady_clock::now() + kPollFor;
    for (int i = 1; !done(); ++i) {
        cpuRelax();
        // Yielding lets a thread that needs this core run (a new std::async task, say) while
        // we wait; with nothing else runnable it returns at once.
        if (i % 16 == 0) {
            std::this_thread::yield();
            if (std::chrono::steady_clock::now() > until) break;
        }
    }
    lock.lock();
}

void ThreadPool::runChunk(Job& job, std::unique_lock<std::mutex>& lock) {
    const int64_t begin = job.next;
    const int64_t end = std::min(job.n, begin + std::max(job.minChunk, (job.n - begin) / (kShare * slots_)));
    job.next = end;
    if (!job.claimable()) {
        std::erase(jobs_, &job);
        claimable_.store(jobs_.size(), std::memory_order_relaxed);
    }
    lock.unlock();
    std::exception_ptr error;
    try {
        (*job.fn)(begin, end);
    } catch (...) {
        error = std::current_exception();
    }
    lock.lock();
    if (error && !job.error) job.error = error;
    if ((job.done += end - begin) == job.n) changed_.notify_all();  // its caller may be waiting
}

void ThreadPool::workerLoop() {
    std::unique_lock lock(mutex_);
    auto runnable = [&] { return stopping_ || (freeSlots_ > 0 && !jobs_.empty()); };
    while (true) {
        if (!runnable()) pollBeforeSleeping(lock, [&] { return claimable_.load(std::memory_order_relaxed) > 0; });
        changed_.wait(lock, runnable);
        if (stopping_) return;
        --freeSlots_;
        tHoldsSlot = true;
        while (Job* job = claimableJob(nullptr)) runChunk(*job, lock);
        tHoldsSlot = false;
        ++freeSlots_;
    }
}

void ThreadPool::parallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn, int64_t minChunk) {
    if (n <= 0) return;
    if (tHoldsSlot) {
        fn(0, n);
        return;
    }
    Job job{&fn, n, std::max<int64_t>(1, minChunk), 0, 0, nullptr};

    std::unique_lock lock(mutex_);
    jobs_.push_back(&job);
    claimable_.store(jobs_.size(), std::memory_order_relaxed);
    if (n > job.minChunk) changed_.notify_all();
    while (!job.finished()) {
        // Wait for a slot (and something to run), or for others to finish our job.
        auto ready = [&] { return job.finished() || (freeSlots_ > 0 && claimableJob(&job)); };
        if (!ready())
            pollBeforeSleeping(lock, [&] { return job.finished() || claimable_.load(std::memory_order_relaxed) > 0; });
        changed_.wait(lock, ready);
        if (job.finished()) break;
        --freeSlots_;
        tHoldsSlot = true;
        // Our own chunks first; once they are all handed out, help other jobs until ours completes.
        while (!job.finished()) {
            Job* next = claimableJob(&job);
            if (!next) break;
            runChunk(*next, lock);
        }
        tHoldsSlot = false;
        ++freeSlots_;
        if (!jobs_.empty()) changed_.notify_all();  // the slot we free can serve another job
    }
    if (job.error) std::rethrow_exception(job.error);
}

}  // namespace llama::ml
