#include "formats/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace llama {

namespace {
[[noreturn]] void fail(const std::string& what, const std::string& path) {
    throw std::runtime_error(what + " '" + path + "': " + std::strerror(errno));
}
}  // namespace

MappedFile::MappedFile(std::string path) : path_(std::move(path)) {
    int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail("cannot open", path_);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        int saved = errno;
        ::close(fd);
        errno = saved;
        fail("cannot stat", path_);
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        throw std::runtime_error("cannot map '" + path_ + "': not a regular file");
    }
    size_ = size_t(st.st_size);
    if (size_ > 0) {
        data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (data_ == MAP_FAILED) {
            int saved = errno;
            data_ = nullptr;
            ::close(fd);
            errno = saved;
            fail("cannot mmap", path_);
        }
    }
    // The mapping keeps the file's pages reachable; the descriptor is no longer needed.
    ::close(fd);
}

MappedFile::~MappedFile() {
    if (data_) ::munmap(data_, size_);
}

void MappedFile::prefault(const std::function<void(size_t, size_t)>& progress) const {
    if (!data_) {
        if (progress) progress(0, 0);
        return;
    }
    // WILLNEED starts asynchronous read-ahead; touching a byte per page then waits for
    // each page in order, which is what makes the progress numbers meaningful.
    ::madvise(data_, size_, MADV_WILLNEED);
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    const size_t step = size_t(64) << 20;  // report every 64 MiB
    const volatile unsigned char* p = static_cast<const unsigned char*>(data_);
    unsigned char sink = 0;
    for (size_t off = 0; off < size_; off += page) {
        sink ^= p[off];
        if (progress && off % step == 0 && off) progress(off, size_);
    }
    (void)sink;
    if (progress) progress(size_, size_);
}

}  // namespace llama
