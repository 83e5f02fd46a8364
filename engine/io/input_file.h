#pragma once
// Files a person names as input (traces, documents, debug logs, chapters), checked before any
// memory is spent: a FIFO, a device (/dev/zero) or a folder is refused by its type, and a file
// larger than the memory this process may use is refused with the gigabytes it would need.
#include <cstdint>
#include <string>

namespace llama {

// The bytes this process may allocate: physical memory, or less under an address-space limit
// (RLIMIT_AS). 0 when unknown.
int64_t memoryAvailable();

// Throws std::invalid_argument naming `path` and `what` ("trace", "document") unless `path` is a
// regular file whose size (times `bytesPerByte`, what reading it costs) fits memoryAvailable().
void checkInputFile(const std::string& path, const std::string& what, double bytesPerByte = 1);

// checkInputFile, then the whole file.
std::string readInputFile(const std::string& path, const std::string& what, double bytesPerByte = 1);

}  // namespace llama
