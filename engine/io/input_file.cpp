#include "io/input_file.h"

#include "io/atomic_output.h"

#include <fmt/format.h>
#ifdef __EMSCRIPTEN__
#include <emscripten/heap.h>
#include <malloc.h>
#endif
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace llama {

namespace {
const char* kindOf(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}
}  // namespace

int64_t moduleMemoryAvailable(int64_t heapMax, int64_t inUse) { return std::max<int64_t>(heapMax - inUse, 1); }

int64_t memoryAvailable() {
#ifdef __EMSCRIPTEN__
    // Not sysconf's count: what is left of the heap's maximum. uordblks (the bytes malloc handed
    // out) is an int in malloc.h: read back as the 32-bit size it is.
    return moduleMemoryAvailable(int64_t(emscripten_get_heap_max()), int64_t(size_t(mallinfo().uordblks)));
#else
    int64_t available = int64_t(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
    if (rlimit limit; getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        available = std::min(available, int64_t(limit.rlim_cur));
    return std::max<int64_t>(available, 0);
#endif
}

void checkInputFile(const std::string& path, const std::string& what, double bytesPerByte) {
    struct stat st {};
    // stat, not open: opening a FIFO would wait for a writer.
    if (::stat(path.c_str(), &st) != 0) throw std::invalid_argument(fmt::format("cannot open {} '{}': {}", what, path, std::strerror(errno)));
    if (!S_ISREG(st.st_mode)) throw std::invalid_argument(fmt::format("{} '{}' is {}; expected a regular file", what, path, kindOf(st.st_mode)));
    noteInputFile(path);
    const double needed = double(st.st_size) * bytesPerByte;
    if (const int64_t available = memoryAvailable(); available > 0 && needed > double(available))
        throw std::invalid_argument(fmt::format("{} '{}' ({:.1f} GB) would need {:.1f} GB of memory to read, more than the {:.1f} GB this "
                                                "process may use",
                                                what, path, st.st_size / 1e9, needed / 1e9, available / 1e9));
}

std::string readInputFile(const std::string& path, const std::string& what, double bytesPerByte) {
    checkInputFile(path, what, bytesPerByte);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::invalid_argument(fmt::format("cannot open {} '{}': {}", what, path, std::strerror(errno)));
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace llama
