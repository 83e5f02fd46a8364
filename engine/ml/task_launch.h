#pragma once
// How the model's parallel tasks (Q, K and V, as the walkthrough's goroutines) are launched: each
// on a thread of its own, or, in a build without threads (the browser page served without
// cross-origin isolation), deferred: each runs when its result is asked for, one after another,
// the same code with the same stage marks.
#include <future>

namespace llama::ml {

#ifdef LLAMA_NO_THREADS
inline constexpr std::launch kTaskLaunch = std::launch::deferred;
#else
inline constexpr std::launch kTaskLaunch = std::launch::async;
#endif

}  // namespace llama::ml
