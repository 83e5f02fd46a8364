#pragma once
// A file written under a temporary name beside its destination and renamed over it only when
// complete: a failed or interrupted write never leaves a truncated file, and a file that is
// still being read (a memory-mapped model) is never truncated under its reader. A destination
// that exists and is not a regular file (/dev/null, a FIFO) is written in place: renaming over
// it would replace the device itself.
#include <fstream>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace llama {

class AtomicOutputFile {
public:
    // Opens "<path>.tmp-<pid>-<random>", created exclusively (never through a planted link), or a
    // non-regular path itself, for writing; throws naming the path if it cannot, or if `path` is a
    // file this process has read (noteInputFile).
    // `bufferBytes`: the stream's buffer, 0 for the library's 8 KB. A larger one means fewer system
    // calls (a trace of 100,000 records: 1,963 writes with 1 MB, not 6,401), and a failed write
    // found later: by the writer's own check of its stream, or by commit().
    explicit AtomicOutputFile(std::string path, size_t bufferBytes = 0);
    // Without a successful commit(), the temporary file is removed.
    ~AtomicOutputFile();
    AtomicOutputFile(const AtomicOutputFile&) = delete;
    AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

    std::ofstream& stream() { return out_; }
    // Where the bytes go until commit(): the temporary file (or the non-regular path itself).
    const std::string& writingPath() const { return tmp_; }
    // Flushes, checks every write succeeded, and renames the file into place; throws naming the
    // path (the temporary file removed) if any of that failed. `check`, when given, is called
    // with the complete temporary file first (not for a path written in place, a device or FIFO,
    // which cannot be read back); what it throws leaves nothing behind.
    void commit(const std::function<void(const std::string& written)>& check = {});

private:
    void release();  // the temporary file is no longer the signal handler's to remove

    std::string path_, tmp_;
    int slot_ = -1;
    std::vector<char> buffer_;  // the stream's, when bufferBytes asked for one
    std::ofstream out_;
    bool committed_ = false;
};

// Writes `bytes` as the whole file at `path`, through an AtomicOutputFile.
void writeFileAtomically(const std::string& path, std::string_view bytes);

// Checked before any work starts, so a mistyped output never costs the whole job: throws
// std::invalid_argument naming `option` when `path` is empty, a folder (unless `folder`: a
// Hugging Face export writes one), in a folder that does not exist or cannot be written, one of
// `inputs` (a file, or a file directly inside an input folder: every file of a model), or the
// same file as one of `otherOutputs`, or any file this process has read (noteInputFile). An existing
// non-regular file (/dev/null) is accepted.
void checkOutputPath(const std::string& option, const std::string& path, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& otherOutputs = {}, bool folder = false);

// Notes a file this process reads (every input file, mapped model file and trace is noted when
// opened): checkOutputPath and AtomicOutputFile refuse to write over any of them, whichever path
// names it. A folder notes every file directly inside it (a model's files).
void noteInputFile(const std::string& path);
// The files of `path` (a file, or every file directly inside a folder) are no longer read: their
// contents were copied and their mappings closed, so they may be written again (a training
// checkpoint replaced by the next one of the resumed run).
void releaseInputFile(const std::string& path);

// Temporary files are removed on every way out: errors and exceptions by ~AtomicOutputFile, and
// SIGINT, SIGTERM, SIGHUP and SIGPIPE (when nothing else handles them) by a handler that removes
// every live temporary file and then dies of the signal as before. SIGXFSZ is ignored, so a file
// size limit is a write error (EFBIG) that commit() reports. Installed by the first
// AtomicOutputFile; removeTemporaryOutputs() is async-signal-safe, for handlers of our own.
void removeTemporaryOutputs();

}  // namespace llama
