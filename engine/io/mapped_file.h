#pragma once
// A read-only memory mapping of a whole file. Checkpoints are many gigabytes; mapping
// them lets tensors point straight into the file (no copy, no load time), and the
// kernel pages bytes in on first use and can drop them again under memory pressure.
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>

namespace llama {

// A MappedFile is shared through std::shared_ptr by the readers whose tensors point into it. A file
// a front end holds in memory (io/memory_files.h: the browser build's model files) is served from
// there, not mapped: its bytes are used in place and kept alive while this object lives.
class MappedFile {
public:
    // Throws std::runtime_error naming the path and the system's reason if it cannot be mapped.
    explicit MappedFile(std::string path);

    const std::string& path() const { return path_; }
    size_t size() const { return size_; }
    // Empty for an empty file (mmap cannot map zero bytes, so nothing is mapped).
    std::span<const std::byte> bytes() const { return {data_.get(), size()}; }

    // Reads one byte of every page so the whole file is resident before the first
    // forward pass; `progress(done, total)` lets a CLI show how far loading got.
    void prefault(const std::function<void(size_t done, size_t total)>& progress = {}) const;

private:
    std::string path_;
    std::shared_ptr<const std::byte> data_;  // null for an empty file; unmaps (or frees) the bytes
    size_t size_ = 0;
};

}  // namespace llama
