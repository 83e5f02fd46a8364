#pragma once
// Files a front end has already placed in this process's memory, served to MappedFile in place of
// mapping them. The browser build reads a reader's model straight from their disk into the
// module's heap (web/page/heap_files.js): the weights then live there once, not in a file system
// and again in a mapping. Natively nothing is held and every file is mapped.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

namespace llama {

struct MemoryFile {
    std::shared_ptr<const std::byte> bytes;  // freed by its deleter once nothing uses it
    size_t size = 0;
};

// `path` is served from `file` from now on (replacing what it held before). Paths are compared as
// absolute, normal paths: "assets/model/x" and "/assets/model/./x" from "/" are one file.
void holdFileInMemory(const std::string& path, MemoryFile file);
// `path` is a file again; its bytes are freed when the last MappedFile of them goes.
void releaseFileInMemory(const std::string& path);
std::optional<MemoryFile> fileInMemory(const std::string& path);

}  // namespace llama
