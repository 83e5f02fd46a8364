#pragma once
// How the model's parallel tasks (Q, K and V, as the walkthrough's goroutines) are launched, and
// the scope that outlives them.
//
// A task runs one of three ways (Launch):
//   - NewThread: std::async, a new thread per task, as the walkthrough starts a goroutine (the
//     native build's way);
//   - KeptThreads: on a TaskThreads thread (each task still on a thread of its own, concurrently
//     with the others), the threaded browser build's way, because there a new pthread is not made
//     by the thread that asks for it: Emscripten hands pthread_create to the module's main thread
//     and waits for it (and hands the thread back to that thread when it ends). 24 such tasks per
//     token cost the bundled model half its decode time under Node, and more in a browser, where
//     the module's main thread is a Web Worker answering through its message queue;
//   - Deferred: each run when its result is asked for, one after another, the same code with the
//     same stage marks (a build without threads: the browser page served without cross-origin
//     isolation).
// kBuildLaunch is the build's way; the tests run every way the machine can.
//
// Tasks are launched through a TaskScope, never on their own: a std::future from a KeptThreads
// task does not wait when it is destroyed, so a Stop or an exception between two launches would
// free what a running task still reads. The scope waits for every task it launched, on every way
// out of the block that declares it.
#include <condition_variable>
#include <future>
#include <mutex>
#include <type_traits>

#include "ml/task_threads.h"

namespace llama::ml {

enum class Launch { NewThread, KeptThreads, Deferred };

#if defined(LLAMA_NO_THREADS)
inline constexpr Launch kBuildLaunch = Launch::Deferred;
#elif defined(__EMSCRIPTEN__)
inline constexpr Launch kBuildLaunch = Launch::KeptThreads;
#else
inline constexpr Launch kBuildLaunch = Launch::NewThread;
#endif

// Declare before the futures of the tasks it launches: destroyed after them, it waits until every
// one of its tasks has finished, whatever ended the block (a result, a Stop, an exception).
class TaskScope {
public:
    explicit TaskScope(Launch how = kBuildLaunch) : how_(how) {}
    ~TaskScope() {
        std::unique_lock lock(mutex_);
        finished_.wait(lock, [&] { return running_ == 0; });
    }
    TaskScope(const TaskScope&) = delete;
    TaskScope& operator=(const TaskScope&) = delete;

    // fn as a task of its own; its result (or exception) comes through the future.
    template <class Fn>
    auto launch(Fn&& fn) {
        // A deferred task runs inside its future's get(), on this thread: nothing to wait for
        // (and one never asked for never runs, so it must not be counted).
        if (how_ == Launch::Deferred) return std::async(std::launch::deferred, std::forward<Fn>(fn));
        {
            std::lock_guard lock(mutex_);
            ++running_;
        }
        auto counted = [this, fn = std::forward<Fn>(fn)]() mutable {
            const Finished finished{*this};  // counted out however fn ends
            return fn();
        };
        try {
            if (how_ == Launch::KeptThreads) return runTask(TaskThreads::global(), std::move(counted));
            return std::async(std::launch::async, std::move(counted));
        } catch (...) {  // no thread to run it: never started, so not waited for
            std::lock_guard lock(mutex_);
            --running_;
            throw;
        }
    }

private:
    struct Finished {
        TaskScope& scope;
        ~Finished() {
            // Notified under the lock: the scope cannot be destroyed before this returns.
            std::lock_guard lock(scope.mutex_);
            if (--scope.running_ == 0) scope.finished_.notify_all();
        }
    };

    const Launch how_;
    std::mutex mutex_;
    std::condition_variable finished_;
    int running_ = 0;
};

}  // namespace llama::ml
