#pragma once
// Threads kept for the model's parallel tasks where starting a thread per task costs too much
// (the threaded browser build: ml/task_launch.h says why).
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

}  // namespace llama::ml
