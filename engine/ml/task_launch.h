#pragma once
// How the model's parallel tasks (Q, K and V, as the walkthrough's goroutines) are launched:
// launchTask(fn) runs fn as a task of its own and returns the std::future of its result.
//   - natively: std::async, a new thread per task, as the walkthrough starts a goroutine;
//   - in the threaded browser build: on a TaskThreads thread (each task still on a thread of its
//     own, concurrently with the others), because there a new pthread is not made by the thread
//     that asks for it: Emscripten hands pthread_create to the module's main thread and waits for
//     it (and hands the thread back to that thread when it ends). 24 such tasks per token cost
//     the bundled model half its decode time under Node, and more in a browser, where the
//     module's main thread is a Web Worker answering through its message queue;
//   - in a build without threads (the browser page served without cross-origin isolation):
//     deferred, each run when its result is asked for, one after another, the same code with the
//     same stage marks.
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace llama::ml {

// Threads kept for tasks: a task is handed to a thread that waits for one, or to a new thread if
// none waits, so no task ever waits behind another (tasks may wait on each other's results).
class TaskThreads {
public:
    TaskThreads() = default;
    ~TaskThreads();  // lets the threads finish their tasks and joins them
    TaskThreads(const TaskThreads&) = delete;
    TaskThreads& operator=(const TaskThreads&) = delete;

    void run(std::function<void()> task);
    size_t threadCount();     // started so far
    size_t waitingThreads();  // waiting for a task


    static TaskThreads& global();

private:
    void loop();

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> tasks_;  // handed out, not yet taken
    size_t waiting_ = 0;                        // threads waiting for a task
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

// fn on one of `threads`; its result (or exception) comes through the future.
template <class Fn>
auto runTask(TaskThreads& threads, Fn&& fn) {
    using Result = std::invoke_result_t<std::decay_t<Fn>&>;
    auto task = std::make_shared<std::packaged_task<Result()>>(std::forward<Fn>(fn));
    std::future<Result> result = task->get_future();
    threads.run([task] { (*task)(); });
    return result;
}

template <class Fn>
auto launchTask(Fn&& fn) {
#if defined(LLAMA_NO_THREADS)
    return std::async(std::launch::deferred, std::forward<Fn>(fn));
#elif defined(__EMSCRIPTEN__)
    return runTask(TaskThreads::global(), std::forward<Fn>(fn));
#else
    return std::async(std::launch::async, std::forward<Fn>(fn));
#endif
}

}  // namespace llama::ml
