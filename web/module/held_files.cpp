// The reader's model files in the module's memory (web/page/heap_files.js reads them into blocks
// allocateFile gives): handed to the engine's loaders (io/memory_files.h), which use the
// bytes in place, and what the page needs to refuse files that cannot fit before reading them.
#include <emscripten/bind.h>

#include <emscripten/heap.h>
#include <malloc.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>

#include "io/input_file.h"
#include "io/memory_files.h"

namespace {

using namespace llama;

// A block for a file of `size` bytes, 0 if the heap cannot give one. Emscripten 3.1.6's dlmalloc
// grows the heap by one sbrk of less than 2 GB, and a larger request fails and leaves it unable to
// grow contiguously again: a block that large is made from the top of the heap, grown first by
// blocks of 512 MB held and freed (they merge into the top again, or into the free space they
// came from). Smaller blocks are malloc's own.
uintptr_t allocateFile(size_t size) {
    constexpr size_t kStep = size_t(512) << 20, kSafeGrowth = size_t(1536) << 20;
    if (size < kSafeGrowth) return reinterpret_cast<uintptr_t>(std::malloc(std::max<size_t>(size, 1)));
    // In 64 bits: a top of 2.5 GB plus 1.5 GB is 0 in wasm32's size_t.
    const auto top = [] { return uint64_t(unsigned(mallinfo().keepcost)); };
    std::array<void*, 8> steps{};  // not a vector: its own blocks would sit between the steps
    uint64_t held = 0;
    size_t n = 0;
    while (n < steps.size() && top() + held < size) {
        // The last only as large as what is missing: a step past the heap's maximum would fail
        // (512 MB steps stopped a 3.9 GB file), and a failed one leaves malloc unable to grow.
        const size_t step = size_t(std::min<uint64_t>(kStep, size - (top() + held)));
        if (!(steps[n] = std::malloc(step))) break;
        held += step, ++n;
    }
    for (size_t i = n; i-- > 0;) std::free(steps[i]);
    // Only a request malloc can meet from free space or by growing the top by less than 2 GB.
    if (top() + kSafeGrowth < uint64_t(size)) return 0;
    return reinterpret_cast<uintptr_t>(std::malloc(size));
}

// The block at `address` is the engine's from now on: freed once released and no model uses it.
void holdFile(const std::string& path, uintptr_t address, size_t size) {
    const auto* bytes = reinterpret_cast<const std::byte*>(address);
    holdFileInMemory(path, MemoryFile{std::shared_ptr<const std::byte>(bytes, [](const std::byte* p) { std::free(const_cast<std::byte*>(p)); }), size});
}

void releaseFile(const std::string& path) { releaseFileInMemory(path); }

// How much the module may hold (its heap's maximum, and why) and holds now: the bytes malloc
// has handed out, the reader's and the bundled model's files among them.
std::string memoryInfo() {
    return nlohmann::json{{"limitBytes", moduleMemoryAvailable(int64_t(emscripten_get_heap_max()), 0)},
                          {"limitReason", kModuleHeapLimitReason},
                          {"inUseBytes", int64_t(size_t(mallinfo().uordblks))}}
        .dump();
}

}  // namespace

EMSCRIPTEN_BINDINGS(llama_held_files) {
    emscripten::function("allocateFile", &allocateFile);
    emscripten::function("holdFile", &holdFile);
    emscripten::function("releaseFile", &releaseFile);
    emscripten::function("memoryInfo", &memoryInfo);
}
