#pragma once
// A file written under a temporary name beside its destination and renamed over it only when
// complete: a failed or interrupted write never leaves a truncated file, and a file that is
// still being read (a memory-mapped model) is never truncated under its reader. A destination
// that exists and is not a regular file (/dev/null, a FIFO) is written in place: renaming over
// it would replace the device itself.
#include <fstream>
#include <string>

namespace llama {

class AtomicOutputFile {
public:
    // Opens "<path>.tmp-<pid>" (or a non-regular path itself) for writing; throws naming the path
    // if it cannot.
    explicit AtomicOutputFile(std::string path);
    // Without a successful commit(), the temporary file is removed.
    ~AtomicOutputFile();
    AtomicOutputFile(const AtomicOutputFile&) = delete;
    AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

    std::ofstream& stream() { return out_; }
    // Flushes, checks every write succeeded, and renames the file into place; throws naming the
    // path (the temporary file removed) if any of that failed.
    void commit();

private:
    std::string path_, tmp_;
    std::ofstream out_;
    bool committed_ = false;
};

// Throws if `out` names an existing file that is also one of the model files at `input` (the
// file itself, or a file directly inside the directory): an export must never replace its source.
void refuseToOverwriteInput(const std::string& input, const std::string& out);

}  // namespace llama
