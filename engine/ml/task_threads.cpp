#include "ml/task_threads.h"

namespace llama::ml {

TaskThreads::~TaskThreads() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
}

void TaskThreads::run(std::function<void()> task) {
    std::unique_lock lock(mutex_);
    tasks_.push_back(std::move(task));
    // Every waiting thread already woken may be on its way to an earlier task.
    if (waiting_ >= tasks_.size()) {
        lock.unlock();
        wake_.notify_one();
        return;
    }
    try {
        threads_.emplace_back([this] { loop(); });
    } catch (...) {  // no thread for it: it does not run (TaskScope counts on that)
        tasks_.pop_back();
        throw;
    }
}

size_t TaskThreads::threadCount() {
    std::lock_guard lock(mutex_);
    return threads_.size();
}

size_t TaskThreads::waitingThreads() {
    std::lock_guard lock(mutex_);
    return waiting_;
}

TaskThreads& TaskThreads::global() {
    static TaskThreads threads;
    return threads;
}

void TaskThreads::loop() {
    std::unique_lock lock(mutex_);
    while (true) {
        ++waiting_;
        wake_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
        --waiting_;
        if (tasks_.empty()) return;  // stopping, and nothing left to run
        std::function<void()> task = std::move(tasks_.front());
        tasks_.pop_front();
        lock.unlock();
        task();  // a packaged_task: its exception goes to its future
        lock.lock();
    }
}

}  // namespace llama::ml
