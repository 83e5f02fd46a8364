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

// The mapping has one owner (data_, which unmaps it), so a MappedFile is not copied; it is
// shared through std::shared_ptr by the readers whose tensors point into it.
class MappedFile {
public:
    // Throws std::runtime_error naming the path and the system's reason if it cannot be mapped.
    explicit MappedFile(std::string path);

    const std::string& path() const { return path_; }
    size_t size() const { return data_ ? data_.get_deleter().length : 0; }
    // Empty for an empty file (mmap cannot map zero bytes, so nothing is mapped).
    std::span<const std::byte> bytes() const { return {data_.get(), size()}; }

    // Reads one byte of every page so the whole file is resident before the first
    // forward pass; `progress(done, total)` lets a CLI show how far loading got.
    void prefault(const std::function<void(size_t done, size_t total)>& progress = {}) const;

private:
    // munmap needs the length as well as the address: it travels with the pointer.
    struct Unmap {
        size_t length;
        void operator()(const std::byte* p) const;
    };
    std::string path_;
    std::unique_ptr<const std::byte, Unmap> data_;  // null for an empty file
};

}  // namespace llama
