#pragma once
// A read-only memory mapping of a whole file. Checkpoints are many gigabytes; mapping
// them lets tensors point straight into the file (no copy, no load time), and the
// kernel pages bytes in on first use and can drop them again under memory pressure.
#include <cstddef>
#include <functional>
#include <span>
#include <string>

namespace llama {

class MappedFile {
public:
    // Throws std::runtime_error naming the path and the system's reason if it cannot be mapped.
    explicit MappedFile(std::string path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::string& path() const { return path_; }
    size_t size() const { return size_; }
    // Empty for an empty file (mmap cannot map zero bytes, so nothing is mapped).
    std::span<const std::byte> bytes() const { return {static_cast<const std::byte*>(data_), size_}; }

    // Reads one byte of every page so the whole file is resident before the first
    // forward pass; `progress(done, total)` lets a CLI show how far loading got.
    void prefault(const std::function<void(size_t done, size_t total)>& progress = {}) const;

private:
    std::string path_;
    void* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace llama
