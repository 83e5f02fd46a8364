#pragma once
// Files a person names as input (traces, documents, debug logs, chapters), checked before any
// memory is spent: a FIFO, a device (/dev/zero) or a folder is refused by its type, and a file
// larger than the memory this process may use is refused with the gigabytes it would need.
#include <cstdint>
#include <string>

namespace llama {

// The bytes this process may allocate: physical memory, or less under an address-space limit
// (RLIMIT_AS); in the browser build, moduleMemoryAvailable of its heap. 0 when unknown.
int64_t memoryAvailable();

// The browser build's heap may grow to all that wasm32 addresses, 4 GB (Emscripten's maximum,
// heapMax, is 64 KB less): Emscripten 3.1.6's runtime shifted some addresses past 2 GB as signed
// numbers, and the module is linked with them made unsigned (web/unsigned_addresses.cmake).
// The reason, as the page says it when it refuses a model's files.
inline constexpr const char* kModuleHeapLimitReason = "all that a 32-bit WebAssembly module can address";
// What is left of heapMax with inUse bytes allocated; at least 1, so a full heap refuses what is
// asked rather than reading as unknown.
int64_t moduleMemoryAvailable(int64_t heapMax, int64_t inUse);

// Throws std::invalid_argument naming `path` and `what` ("trace", "document") unless `path` is a
// regular file whose size (times `bytesPerByte`, what reading it costs) fits memoryAvailable().
void checkInputFile(const std::string& path, const std::string& what, double bytesPerByte = 1);

// checkInputFile, then the whole file.
std::string readInputFile(const std::string& path, const std::string& what, double bytesPerByte = 1);

}  // namespace llama
