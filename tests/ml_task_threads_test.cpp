// TaskThreads and TaskScope (ml/task_launch.h): the threads the browser build runs Q, K and V's tasks
// on, and the scope that waits for every task it launched.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ml/task_launch.h"
#include "ml/task_threads.h"

using llama::ml::runTask;
using llama::ml::TaskThreads;

namespace {

// Waits (up to 10 s) until cond() holds; false if it never did.
template <class Cond>
bool eventually(Cond&& cond) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!cond()) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

}  // namespace

TEST_CASE("task threads: tasks that wait for each other all run, each on a thread of its own", "[ml][task_threads]") {
    // The first result asked for may run on this thread (no kept thread had taken it yet); the
    // others cannot: it waits inside its task until all three have started.
    TaskThreads threads;
    std::atomic<int> arrived{0};
    // Each task waits until all three have started: one left waiting in a queue would hang the rest.
    auto task = [&] {
        ++arrived;
        return eventually([&] { return arrived.load() == 3; }) ? std::this_thread::get_id() : std::thread::id();
    };
    auto a = runTask(threads, task), b = runTask(threads, task), c = runTask(threads, task);
    const std::thread::id ia = a.get(), ib = b.get(), ic = c.get();
    CHECK(ia != std::thread::id());
    CHECK(ib != std::thread::id());
    CHECK(ic != std::thread::id());
    CHECK((ia != ib && ib != ic && ia != ic));
    CHECK(ib != std::this_thread::get_id());
    CHECK(ic != std::this_thread::get_id());
    CHECK(threads.threadCount() == 3);
}

TEST_CASE("task threads: a waiting thread takes the next task instead of a new thread", "[ml][task_threads]") {
    TaskThreads threads;
    runTask(threads, [] { return 1; }).get();
    REQUIRE(eventually([&] { return threads.waitingThreads() == 1; }));
    runTask(threads, [] { return 2; }).get();
    CHECK(threads.threadCount() == 1);
}

TEST_CASE("task threads: a task runs once, on a kept thread or on the thread that asks for its result", "[ml][task_threads]") {
    TaskThreads threads;
    std::atomic<int> runs{0};
    int onAsker = 0;
    for (int i = 0; i < 2000; ++i) {
        auto result = runTask(threads, [&] {
            ++runs;
            return std::this_thread::get_id();
        });
        if (i % 2) std::this_thread::yield();  // sometimes a kept thread gets there first
        onAsker += result.get() == std::this_thread::get_id();
    }
    // Tasks whose kept thread had not started them yet may still be queued: wait for the stale entries to drain.
    REQUIRE(eventually([&] { return threads.waitingThreads() == threads.threadCount(); }));
    INFO(onAsker << " of 2000 ran on the asking thread");
    CHECK(runs.load() == 2000);
}

TEST_CASE("task threads: a task's exception reaches its future, and later tasks still run", "[ml][task_threads]") {
    TaskThreads threads;
    auto failing = runTask(threads, []() -> int { throw std::runtime_error("task failed"); });
    CHECK_THROWS_WITH(failing.get(), "task failed");
    CHECK(runTask(threads, [] { return 7; }).get() == 7);
}

// TaskScope (ml/task_launch.h): the launch ways this build can run (a build without threads has
// only the deferred one).
namespace {
std::vector<llama::ml::Launch> launchWays() {
    using llama::ml::Launch;
    if (!llama::ml::kBuildHasThreads) return {Launch::Deferred};
    return {Launch::NewThread, Launch::KeptThreads, Launch::Deferred};
}
}  // namespace

TEST_CASE("task scope: leaving the block by an exception waits for every task it launched", "[ml][task_threads]") {
    for (llama::ml::Launch how : launchWays()) {
        INFO(llama::ml::launchName(how));
        std::atomic<int> finished{0};
        auto slow = [&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
            return ++finished;
        };
        try {
            llama::ml::TaskScope scope(how);
            auto first = scope.launch(slow), second = scope.launch(slow);
            throw std::runtime_error("stopped between launches");
        } catch (const std::runtime_error&) {
        }
        // A deferred task runs only when its result is asked for: never here.
        CHECK(finished.load() == (how == llama::ml::Launch::Deferred ? 0 : 2));
    }
}

TEST_CASE("task scope: one task's exception reaches its future, and the scope still waits for the others", "[ml][task_threads]") {
    for (llama::ml::Launch how : launchWays()) {
        INFO(llama::ml::launchName(how));
        std::atomic<bool> slowFinished{false};
        try {
            llama::ml::TaskScope scope(how);
            auto failing = scope.launch([]() -> int { throw std::runtime_error("task failed"); });
            auto slow = scope.launch([&] {
                std::this_thread::sleep_for(std::chrono::milliseconds(30));
                slowFinished = true;
                return 1;
            });
            CHECK_THROWS_WITH(failing.get(), "task failed");
            throw std::logic_error("leaving before the slow task's result");
        } catch (const std::logic_error&) {
        }
        CHECK(slowFinished == (how != llama::ml::Launch::Deferred));
    }
}
