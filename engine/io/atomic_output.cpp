#include "io/atomic_output.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <random>
#include <stdexcept>
#include <system_error>

namespace llama {

namespace fs = std::filesystem;

namespace {
bool isSpecialFile(const std::string& path) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    return !ec && fs::exists(st) && !fs::is_regular_file(st) && !fs::is_directory(st);
}

// Every file this process has read, by identity (a path may name it in many ways).
struct InputFiles {
    std::mutex mutex;
    std::vector<std::pair<dev_t, ino_t>> ids;
    std::vector<std::string> paths;
};
InputFiles& inputFiles() {
    static InputFiles files;
    return files;
}

// The input `path` is, or "" when it is none.
std::string readInputAt(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
    InputFiles& files = inputFiles();
    std::lock_guard lock(files.mutex);
    for (size_t i = 0; i < files.ids.size(); ++i) {
        if (files.ids[i] != std::pair{st.st_dev, st.st_ino}) continue;
        // Still that file under the name it was read by: a deleted input's inode number may have
        // been given to a new file since.
        struct stat input {};
        if (::stat(files.paths[i].c_str(), &input) == 0 && std::pair{input.st_dev, input.st_ino} == files.ids[i]) return files.paths[i];
    }
    return "";
}

// The live temporary files, where a signal handler can read them: fixed slots, each claimed with
// an atomic flag (no allocation, no lock: both are unsafe in a handler).
struct TemporarySlot {
    std::atomic<bool> claimed{false};  // owned by an AtomicOutputFile
    std::atomic<bool> ready{false};    // path complete: the handler may remove it
    char path[4096];
};
TemporarySlot temporaries[32];

int claimSlot(const std::string& tmp) {
    if (tmp.size() >= sizeof temporaries[0].path) return -1;
    for (int i = 0; i < int(std::size(temporaries)); ++i) {
        bool expected = false;
        if (!temporaries[i].claimed.compare_exchange_strong(expected, true)) continue;
        std::memcpy(temporaries[i].path, tmp.c_str(), tmp.size() + 1);
        temporaries[i].ready = true;
        return i;
    }
    return -1;  // more than 32 files at once: only the destructor removes this one
}

extern "C" void removeAndDie(int signal) {
    removeTemporaryOutputs();
    ::signal(signal, SIG_DFL);
    ::raise(signal);
}

void installSignalCleanup() {
    static std::once_flag once;
    std::call_once(once, [] {
        ::signal(SIGXFSZ, SIG_IGN);
        for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
            struct sigaction current {};
            // A handler someone installed (the CLI's Ctrl-C, an ignored SIGPIPE) stays theirs.
            if (sigaction(sig, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
            struct sigaction action {};
            action.sa_handler = removeAndDie;
            sigemptyset(&action.sa_mask);
            sigaction(sig, &action, nullptr);
        }
    });
}
}  // namespace

namespace {
// The regular files `path` names: itself, or each file directly inside it when it is a folder.
template <class Fn> void forEachRegularFile(const std::string& path, Fn fn) {
    struct stat st {};
    if (path.empty() || ::stat(path.c_str(), &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(path, ec))
            if (entry.is_regular_file(ec) && ::stat(entry.path().c_str(), &st) == 0) fn(entry.path().string(), st);
        return;
    }
    if (S_ISREG(st.st_mode)) fn(path, st);
}
}  // namespace

void noteInputFile(const std::string& path) {
    forEachRegularFile(path, [](const std::string& file, const struct stat& st) {
        InputFiles& files = inputFiles();
        std::lock_guard lock(files.mutex);
        if (std::find(files.ids.begin(), files.ids.end(), std::pair{st.st_dev, st.st_ino}) != files.ids.end()) return;
        files.ids.emplace_back(st.st_dev, st.st_ino);
        files.paths.push_back(file);
    });
}

void releaseInputFile(const std::string& path) {
    forEachRegularFile(path, [](const std::string&, const struct stat& st) {
        InputFiles& files = inputFiles();
        std::lock_guard lock(files.mutex);
        const auto id = std::find(files.ids.begin(), files.ids.end(), std::pair{st.st_dev, st.st_ino});
        if (id == files.ids.end()) return;
        files.paths.erase(files.paths.begin() + (id - files.ids.begin()));
        files.ids.erase(id);
    });
}

void removeTemporaryOutputs() {
    for (auto& slot : temporaries)
        if (slot.ready.load()) ::unlink(slot.path);
}

AtomicOutputFile::AtomicOutputFile(std::string path, size_t bufferBytes) : path_(std::move(path)), buffer_(bufferBytes) {
    if (bufferBytes) out_.rdbuf()->pubsetbuf(buffer_.data(), std::streamsize(buffer_.size()));  // before open, or it is ignored
    // The last guard of every writer: callers check their outputs before any work (checkOutputPath).
    if (const std::string input = readInputAt(path_); !input.empty())
        throw std::invalid_argument("will not write '" + path_ + "': it is '" + input + "', a file this run reads");
    if (isSpecialFile(path_)) {
        tmp_ = path_;
        out_.open(tmp_, std::ios::binary | std::ios::trunc);
        if (!out_) throw std::runtime_error("cannot write '" + path_ + "': " + std::strerror(errno));
        return;
    }
    installSignalCleanup();
    // Created exclusively (O_EXCL also refuses a symbolic link planted under the name), under a
    // name nobody can predict; the stream then opens that very file through its descriptor.
    static std::mt19937_64 names{std::random_device{}()};
    static std::mutex namesMutex;
    int fd = -1;
    for (int attempt = 0; fd < 0; ++attempt) {
        {
            std::lock_guard lock(namesMutex);
            tmp_ = path_ + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(names() % 1000000007);
        }
        fd = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && (errno != EEXIST || attempt == 20))
            throw std::runtime_error("cannot create '" + path_ + "' (writing '" + tmp_ + "' first): " + std::strerror(errno));
    }
    slot_ = claimSlot(tmp_);
    out_.open("/proc/self/fd/" + std::to_string(fd), std::ios::binary | std::ios::trunc);
    if (!out_) out_.open(tmp_, std::ios::binary | std::ios::trunc);  // no /proc: the name we just created
    const int error = errno;
    ::close(fd);
    if (!out_) {
        ::unlink(tmp_.c_str());
        release();
        throw std::runtime_error("cannot create '" + path_ + "' (writing '" + tmp_ + "' first): " + std::strerror(error));
    }
}

void AtomicOutputFile::release() {
    if (slot_ < 0) return;
    temporaries[slot_].ready = false;
    temporaries[slot_].claimed = false;
    slot_ = -1;
}

AtomicOutputFile::~AtomicOutputFile() {
    release();
    if (committed_ || tmp_ == path_) return;
    out_.close();
    std::error_code ignored;
    fs::remove(tmp_, ignored);
}

void AtomicOutputFile::commit(const std::function<void(const std::string& written)>& check) {
    out_.flush();
    const bool written = bool(out_);
    out_.close();
    if (!written || out_.fail()) {
        const std::string why = errno == EFBIG ? " (larger than the file size limit)" : errno == ENOSPC ? " (disk full)" : "";
        if (tmp_ == path_) throw std::runtime_error("writing '" + path_ + "' failed" + (why.empty() ? " (disk full?)" : why));
        throw std::runtime_error("writing '" + path_ + "' failed" + (why.empty() ? " (disk full?)" : why) + "; nothing was written there");
    }
    if (tmp_ == path_) {
        committed_ = true;
        return;
    }
    if (check) check(tmp_);
    committed_ = true;
    // The old file is unlinked first, not replaced by the rename: on ext4 (auto_da_alloc) a rename
    // over an existing file makes the rename itself allocate and start writing the new file's
    // blocks, 40 ms for a 52 MB trace, paid by every rerun; a reader of the old file keeps it
    // either way. The price: for the moment between the two calls the path names no file.
    if (struct stat old {}; ::lstat(path_.c_str(), &old) == 0 && S_ISREG(old.st_mode)) ::unlink(path_.c_str());
    const int renamed = ::rename(tmp_.c_str(), path_.c_str());
    const int error = errno;
    release();
    if (renamed != 0) {
        ::unlink(tmp_.c_str());
        throw std::runtime_error("cannot move the finished file into place at '" + path_ + "': " +
                                 (error == EISDIR || fs::is_directory(path_) ? std::string("it is a folder; name a file") : std::strerror(error)) +
                                 "; nothing was written there");
    }
}

void writeFileAtomically(const std::string& path, std::string_view bytes) {
    AtomicOutputFile file(path);
    file.stream().write(bytes.data(), std::streamsize(bytes.size()));
    file.commit();
}

void checkOutputPath(const std::string& option, const std::string& path, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& otherOutputs, bool folder) {
    auto refuse = [&](const std::string& why) { throw std::invalid_argument(option + " '" + path + "': " + why); };
    if (path.empty()) throw std::invalid_argument(option + ": expected a file path, got an empty one");
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!folder && fs::is_directory(st)) refuse("is a folder; expected a file path");
    if (fs::exists(st) && !fs::is_regular_file(st) && !fs::is_directory(st)) return;  // /dev/null, a FIFO: written in place
    const fs::path parent = fs::absolute(path, ec).parent_path();
    if (!fs::is_directory(parent, ec)) refuse("its folder '" + parent.string() + "' does not exist");
    if (::access(parent.c_str(), W_OK | X_OK) != 0) refuse("its folder '" + parent.string() + "' cannot be written to");
    // Same file: by identity when both exist, else by their canonical paths.
    auto same = [&](const fs::path& other) {
        std::error_code e;
        if (fs::exists(other, e) && fs::exists(path, e)) return fs::equivalent(other, path, e) && !e;
        return fs::weakly_canonical(fs::absolute(other), e) == fs::weakly_canonical(fs::absolute(path), e);
    };
    for (const std::string& input : inputs) {
        if (input.empty()) continue;
        bool clash = same(input);
        if (!clash && fs::is_directory(input, ec))
            for (const auto& entry : fs::directory_iterator(input, ec))
                if (entry.is_regular_file(ec) && same(entry.path())) clash = true;
        if (clash) refuse("is a file this run reads ('" + input + "'); choose another output path");
    }
    if (const std::string input = readInputAt(path); !input.empty()) refuse("is a file this run reads ('" + input + "'); choose another output path");
    for (const std::string& other : otherOutputs)
        if (!other.empty() && same(other)) refuse("is also another output of this run ('" + other + "'); give each output its own path");
}

}  // namespace llama
