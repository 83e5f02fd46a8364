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
#include <future>

#include "ml/task_threads.h"

namespace llama::ml {

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
