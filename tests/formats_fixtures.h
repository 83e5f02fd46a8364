#pragma once
// Helpers shared by the formats_* tests: fixture paths, whole-file reads, and temporary
// files for hostile variants of the fixtures.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include "test_files.h"

namespace formats_test {

inline std::string fixture(const std::string& name) { return std::string(TEST_FIXTURES_DIR) + "/torch/" + name; }

using ::readFile;  // test_files.h's: a file that cannot be opened throws, naming it

// String literals with embedded NULs: bytes("a\x00b") has 3 bytes.
template <size_t N> std::string bytes(const char (&s)[N]) { return std::string(s, N - 1); }

// Replaces every occurrence of `from` (there must be one) by `to` of the same length,
// so that all offsets in the archive stay valid.
inline std::string patched(std::string s, const std::string& from, const std::string& to) {
    if (from.size() != to.size() || s.find(from) == std::string::npos)
        throw std::logic_error("patch target must occur and keep its length");
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    return s;
}

// A zip archive of one stored (uncompressed) entry, as torch.save writes them; the CRC is left 0
// (the reader does not check it).
inline std::string storedZip(const std::string& name, const std::string& data) {
    std::string z;
    auto put = [&](uint64_t v, int n) {
        for (int i = 0; i < n; ++i) z += char(v >> (8 * i) & 0xff);
    };
    auto header = [&](uint32_t signature, bool central) {
        put(signature, 4);
        if (central) put(20, 2);  // version made by
        put(20, 2), put(0, 2), put(0, 2), put(0, 4), put(0, 4);  // version needed, flags, stored, time/date, CRC
        put(data.size(), 4), put(data.size(), 4), put(name.size(), 2), put(0, 2);
        if (central) put(0, 2), put(0, 2), put(0, 2), put(0, 4), put(0, 4);  // comment, disk, attributes, local header at 0
        z += name;
    };
    header(0x04034b50, false);
    z += data;
    const size_t directory = z.size();
    header(0x02014b50, true);
    put(0x06054b50, 4), put(0, 2), put(0, 2), put(1, 2), put(1, 2), put(z.size() - directory, 4), put(directory, 4), put(0, 2);
    return z;
}

// A file in the temp directory, removed when this goes out of scope.
class TempFile {
public:
    explicit TempFile(const std::string& contents) {
        static std::atomic<int> counter{0};
        path_ = (std::filesystem::temp_directory_path() /
                 ("formats_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".pth"))
                    .string();
        std::ofstream(path_, std::ios::binary) << contents;
    }
    ~TempFile() { std::filesystem::remove(path_); }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

}  // namespace formats_test
