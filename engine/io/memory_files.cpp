#include "io/memory_files.h"

#include <filesystem>
#include <map>
#include <mutex>

namespace llama {

namespace {
struct Held {
    std::mutex mutex;  // a model loads on the engine's thread while the front end's thread adds files
    std::map<std::string, MemoryFile> files;
};
Held& held() {
    static Held h;
    return h;
}
std::string key(const std::string& path) { return std::filesystem::absolute(path).lexically_normal().string(); }
}  // namespace

void holdFileInMemory(const std::string& path, MemoryFile file) {
    Held& h = held();
    std::lock_guard lock(h.mutex);
    h.files[key(path)] = std::move(file);
}

void releaseFileInMemory(const std::string& path) {
    Held& h = held();
    std::lock_guard lock(h.mutex);
    h.files.erase(key(path));
}

std::optional<MemoryFile> fileInMemory(const std::string& path) {
    Held& h = held();
    std::lock_guard lock(h.mutex);
    const auto it = h.files.find(key(path));
    if (it == h.files.end()) return std::nullopt;
    return it->second;
}

}  // namespace llama
