#pragma once
// Threads kept for the model's parallel tasks where starting a thread per task costs too much
// (the threaded browser build: ml/task_launch.h says why).
#include <atomic>
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

// A task's result (or exception). Where the task went to kept threads, get() runs it on the
// asking thread if no kept thread has taken it yet: a thread woken for it takes tens of
// microseconds to start on a busy machine, far longer than a small model's task runs, and the
// asker would only wait. So a task still runs once, on a thread of its own or on the asker's.
template <class Result>
class TaskResult {
public:
    struct Claimable {
        std::packaged_task<Result()> task;
        std::atomic<bool> taken{false};
        void runIfUntaken() {
            if (!taken.exchange(true, std::memory_order_acq_rel)) task();
        }
    };

    explicit TaskResult(std::future<Result> future, std::shared_ptr<Claimable> claimable = nullptr)
        : future_(std::move(future)), claimable_(std::move(claimable)) {}

    Result get() {
        if (claimable_) claimable_->runIfUntaken();
        return future_.get();
    }
    bool valid() const { return future_.valid(); }

private:
    std::future<Result> future_;
    std::shared_ptr<Claimable> claimable_;
};

// fn on one of `threads`, or on the thread that asks for its result first (TaskResult).
template <class Fn>
auto runTask(TaskThreads& threads, Fn&& fn) {
    using Result = std::invoke_result_t<std::decay_t<Fn>&>;
    using Claimable = typename TaskResult<Result>::Claimable;
    auto claimable = std::make_shared<Claimable>();
    claimable->task = std::packaged_task<Result()>(std::forward<Fn>(fn));
    TaskResult<Result> result(claimable->task.get_future(), claimable);
    threads.run([claimable] { claimable->runIfUntaken(); });
    return result;
}

}  // namespace llama::ml
