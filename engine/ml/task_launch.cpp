#include "ml/task_launch.h"

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace llama::ml {

const char* launchName(Launch how) {
    switch (how) {
        case Launch::NewThread: return "new-thread";
        case Launch::KeptThreads: return "kept-threads";
        case Launch::Deferred: return "deferred";
    }
    return "?";
}

namespace {
Launch launchFromEnvironment() {
    const char* named = std::getenv("LLAMA_TASKS");
    if (!named || !*named) return kBuildLaunch;
    if (!kBuildHasThreads) {  // a build without threads runs tasks one way
        if (std::string(named) == launchName(Launch::Deferred)) return Launch::Deferred;
        throw std::invalid_argument(std::string("LLAMA_TASKS=") + named + ": this build has no threads; it runs tasks deferred only");
    }
    for (Launch how : {Launch::NewThread, Launch::KeptThreads, Launch::Deferred})
        if (std::string(named) == launchName(how)) return how;
    throw std::invalid_argument(std::string("LLAMA_TASKS=") + named + ": expected new-thread, kept-threads or deferred");
}
}  // namespace

namespace {
std::atomic<int> gChosen{-1};  // a Launch set by setDefaultLaunch, or -1
}  // namespace

Launch defaultLaunch() {
    if (const int chosen = gChosen.load(std::memory_order_relaxed); chosen >= 0) return Launch(chosen);
    static const Launch fromEnvironment = launchFromEnvironment();
    return fromEnvironment;
}

void setDefaultLaunch(std::optional<Launch> how) { gChosen.store(how ? int(*how) : -1, std::memory_order_relaxed); }

}  // namespace llama::ml
