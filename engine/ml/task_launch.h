#pragma once
// How the model's parallel tasks (Q, K and V, as the walkthrough's goroutines) are launched, and
// the scope that outlives them.
//
// A task runs one of three ways (Launch):
//   - NewThread: std::async, a new thread per task, as the walkthrough starts a goroutine;
//   - KeptThreads: on a TaskThreads thread, concurrently with the others, as Go runs goroutines
//     on threads it keeps; a task no kept thread has started when its result is asked for runs
//     on the asking thread (TaskResult, ml/task_threads.h). In the threaded browser build a new
//     pthread is not made by the thread that asks for it (Emscripten hands pthread_create to the
//     module's main thread and waits for it), which cost the bundled model half its decode time
//     under Node: there the way to watch the tasks run side by side;
//   - Deferred: std::async(std::launch::deferred), each run when its result is asked for, one
//     after another, the same code with the same stage marks. Every build's way (the only one of
//     a build without threads: the browser page served without cross-origin isolation). Each
//     task's matrix product already runs on every core (the thread pool), so running the three
//     side by side gains nothing and pays for the hand-overs: on 2 cores the bundled model
//     decoded at 830 tok/s with a new thread per task, 1,100-1,170 on kept threads and
//     1,750-1,900 deferred; a TinyLlama-shaped Q4_K file at 32.5-34.1, 31.7-33.0 and 34.9-36.3
//     (docs/speed.md, "A token of a small model"). In chromium (the threaded page, 2 cores) the
//     bundled model decoded at 157-172 and 188-227 tok/s on kept threads, 210-297 and 237-271
//     deferred (docs/web.md).
// defaultLaunch() is the build's way, or the one LLAMA_TASKS names (new-thread, kept-threads,
// deferred), so a reader can watch the walkthrough's goroutines and what they cost; the tests
// run every way the machine can.
// Tasks are launched through a TaskScope, never on their own: a std::future from a KeptThreads
// task does not wait when it is destroyed, so a Stop or an exception between two launches would
// free what a running task still reads. The scope waits for every task it launched, on every way
// out of the block that declares it.
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <type_traits>

#include "ml/task_threads.h"

namespace llama::ml {

enum class Launch { NewThread, KeptThreads, Deferred };

#if defined(LLAMA_NO_THREADS)
inline constexpr bool kBuildHasThreads = false;
#else
inline constexpr bool kBuildHasThreads = true;
#endif
inline constexpr Launch kBuildLaunch = Launch::Deferred;

// kBuildLaunch, or LLAMA_TASKS's way (read once; a name this build cannot run is an error that
// lists the ones it can), or the one setDefaultLaunch chose last (the tests run the model every
// way; nullopt goes back to the build's or LLAMA_TASKS's).
Launch defaultLaunch();
void setDefaultLaunch(std::optional<Launch> how);
const char* launchName(Launch how);

// Declare before the futures of the tasks it launches: destroyed after them, it waits until every
// one of its tasks has finished, whatever ended the block (a result, a Stop, an exception).
class TaskScope {
public:
    explicit TaskScope(Launch how = defaultLaunch()) : how_(how) {}
    ~TaskScope() {
        std::unique_lock lock(mutex_);
        finished_.wait(lock, [&] { return running_ == 0; });
    }
    TaskScope(const TaskScope&) = delete;
    TaskScope& operator=(const TaskScope&) = delete;

    // fn as a task of its own; its result (or exception) comes through the TaskResult's get().
    template <class Fn>
    auto launch(Fn&& fn) {
        // A deferred task runs inside its future's get(), on this thread: nothing to wait for
        // (and one never asked for never runs, so it must not be counted).
        using Result = std::invoke_result_t<std::decay_t<Fn>&>;
        if (how_ == Launch::Deferred) return TaskResult<Result>(std::async(std::launch::deferred, std::forward<Fn>(fn)));
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
            return TaskResult<Result>(std::async(std::launch::async, std::move(counted)));
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
