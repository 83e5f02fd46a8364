#include "formats/atomic_output.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
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
}  // namespace

AtomicOutputFile::AtomicOutputFile(std::string path)
    : path_(std::move(path)), tmp_(isSpecialFile(path_) ? path_ : path_ + ".tmp-" + std::to_string(::getpid())) {
    out_.open(tmp_, std::ios::binary | std::ios::trunc);
    if (!out_) throw std::runtime_error("cannot create '" + path_ + "' (writing '" + tmp_ + "' first): " + std::strerror(errno));
}

AtomicOutputFile::~AtomicOutputFile() {
    if (committed_ || tmp_ == path_) return;
    out_.close();
    std::error_code ignored;
    fs::remove(tmp_, ignored);
}

void AtomicOutputFile::commit() {
    out_.flush();
    const bool written = bool(out_);
    out_.close();
    if (!written || out_.fail()) {
        if (tmp_ == path_) throw std::runtime_error("writing '" + path_ + "' failed (disk full?)");
        throw std::runtime_error("writing '" + path_ + "' failed (disk full?); nothing was written there");
    }
    committed_ = true;
    if (tmp_ == path_) return;
    std::error_code ec;
    fs::rename(tmp_, path_, ec);
    if (ec) {
        fs::remove(tmp_, ec);
        throw std::runtime_error("cannot move the finished file into place at '" + path_ + "': " + ec.message());
    }
}

void refuseToOverwriteInput(const std::string& input, const std::string& out) {
    std::error_code ec;
    if (!fs::exists(out, ec)) return;
    auto same = [&](const fs::path& candidate) {
        std::error_code e;
        return fs::equivalent(candidate, out, e) && !e;
    };
    bool clash = same(input);
    if (!clash && fs::is_directory(input, ec))
        for (const auto& entry : fs::directory_iterator(input, ec))
            if (entry.is_regular_file(ec) && same(entry.path())) clash = true;
    if (clash) throw std::invalid_argument("--out '" + out + "' is part of the model being read ('" + input + "'); choose another output path");
}

}  // namespace llama
