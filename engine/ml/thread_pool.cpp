#include "ml/thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <utility>
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
// Which home range of a job this thread claims from first (ThreadPool::Job): 0 for a caller, 1 to
// threads - 1 for the workers.
thread_local int tHome = 0;

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

// The indices are split into one home range per thread (fewer where a range would hold less than
// minChunk), and a thread claims from the front of its own range first, then from the back of the
// fullest other one. So a thread writes the same part of an op's result in every call, which keeps
// those cache lines in its own core: on this 2-core VM a line the other core holds costs 100-450 ns
// to write (docs/speed.md, "Two threads on a small model"), and with chunks handed out by timing
// alone half of every small result was such lines.
struct ThreadPool::Job {
    static constexpr int kMaxHomes = 16;  // threads past this share home ranges
    struct Range {
        int64_t next, end;  // unclaimed: [next, end)
        int64_t left() const { return end - next; }
    };

    const std::function<void(int64_t, int64_t)>* fn;
    int64_t n;
    int64_t minChunk;
    int homes;
    Range ranges[kMaxHomes];
    int64_t unclaimed;
    std::atomic<int64_t> done = 0;  // indices whose chunk has finished
    std::exception_ptr error;

    Job(const std::function<void(int64_t, int64_t)>* f, int64_t count, int64_t min, int threads)
        : fn(f), n(count), minChunk(std::max<int64_t>(1, min)),
          homes(int(std::clamp<int64_t>(count / minChunk, 1, std::min(threads, kMaxHomes)))), unclaimed(count) {
        for (int h = 0; h < homes; ++h) ranges[h] = {n * h / homes, n * (h + 1) / homes};
    }
    bool claimable() const { return unclaimed > 0; }
    bool finished() const { return done.load(std::memory_order_acquire) == n; }
    // The next chunk for a thread whose home is `home`, at most `size` indices.
    std::pair<int64_t, int64_t> claim(int home, int64_t size) {
        Range& own = ranges[home % homes];
        int64_t begin, end;
        if (own.left() > 0) {
            begin = own.next;
            end = own.next = std::min(own.end, begin + size);
        } else {
            Range* fullest = &ranges[0];
            for (int h = 1; h < homes; ++h)
                if (ranges[h].left() > fullest->left()) fullest = &ranges[h];
            end = fullest->end;
            begin = fullest->end = std::max(fullest->next, end - size);
        }
        unclaimed -= end - begin;
        return {begin, end};
    }
};

ThreadPool::ThreadPool(int threads) : slots_(threads), freeSlots_(threads) {
    if (threads < 1 || threads > maxThreads())
        throw std::invalid_argument("thread count " + std::to_string(threads) + " is outside 1 to " + std::to_string(maxThreads()) +
                                    " (4x this machine's cores)");
    try {
        for (int i = 0; i + 1 < threads; ++i)
            workers_.emplace_back([this, i] {
                tHome = i + 1;
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
    const auto [begin, end] = job.claim(tHome, std::max(job.minChunk, job.unclaimed / (kShare * slots_)));
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
    // A loop too small for two chunks runs on the calling thread at once, as the serial code
    // around it does. Through the pool it took the lock, and a polling worker could take the loop
    // or its smaller half, so a small model's decode step passed its results between the cores op
    // after op (docs/speed.md, "Two threads on a small model").
    if (tHoldsSlot || n < 2 * minChunk) {
        fn(0, n);
        return;
    }
    Job job(&fn, n, minChunk, slots_);

    std::unique_lock lock(mutex_);
    jobs_.push_back(&job);
    claimable_.store(jobs_.size(), std::memory_order_relaxed);
    changed_.notify_all();
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
