#include "io/mapped_file.h"

#include "io/atomic_output.h"
#include "io/memory_files.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>

namespace llama {

namespace {
// The message is made (errno read) before the throw unwinds anything, e.g. closes the descriptor.
[[noreturn]] void failMapping(const std::string& what, const std::string& path) {
    throw std::runtime_error(what + " '" + path + "': " + std::strerror(errno));
}

// Closes the descriptor however the constructor leaves: the mapping, once made, keeps the
// file's pages reachable without it.
struct Descriptor {
    int fd;
    ~Descriptor() {
        if (fd >= 0) ::close(fd);
    }
};
}  // namespace

MappedFile::MappedFile(std::string path) : path_(std::move(path)) {
    if (std::optional<MemoryFile> held = fileInMemory(path_)) {
        noteInputFile(path_);
        data_ = std::move(held->bytes);
        size_ = held->size;
        return;
    }
    // O_NONBLOCK: a FIFO opens at once (and is refused below) instead of waiting for a writer.
    const Descriptor file{::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
    if (file.fd < 0) failMapping("cannot open", path_);
    struct stat st {};
    if (::fstat(file.fd, &st) != 0) failMapping("cannot stat", path_);
    if (!S_ISREG(st.st_mode)) throw std::runtime_error("cannot map '" + path_ + "': not a regular file");
    noteInputFile(path_);
    const size_t length = size_t(st.st_size);
    if (length == 0) return;
    void* p = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE, file.fd, 0);
    if (p == MAP_FAILED) failMapping("cannot mmap", path_);
    // munmap needs the length as well as the address: it travels with the pointer.
    data_ = std::shared_ptr<const std::byte>(static_cast<const std::byte*>(p), [length](const std::byte* q) { ::munmap(const_cast<std::byte*>(q), length); });
    size_ = length;
}

void MappedFile::prefault(const std::function<void(size_t, size_t)>& progress) const {
    const size_t size = this->size();
    if (!data_) {
        if (progress) progress(0, 0);
        return;
    }
    // WILLNEED starts asynchronous read-ahead; touching a byte per page then waits for
    // each page in order, which is what makes the progress numbers meaningful.
    ::madvise(const_cast<std::byte*>(data_.get()), size, MADV_WILLNEED);
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    const size_t step = size_t(64) << 20;  // report every 64 MiB
    const volatile unsigned char* p = reinterpret_cast<const unsigned char*>(data_.get());
    unsigned char sink = 0;
    for (size_t off = 0; off < size; off += page) {
        sink ^= p[off];
        if (progress && off % step == 0 && off) progress(off, size);
    }
    (void)sink;
    if (progress) progress(size, size);
}

}  // namespace llama
