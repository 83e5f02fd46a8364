#pragma once
// An index of the entries of a zip archive held in memory (normally a MappedFile).
//
// Hand-written rather than using libzip/minizip: those read entries by copying them into
// buffers, while a 16 GB checkpoint needs each weight to be a view straight into the
// mapping; and torch writes only uncompressed ("stored") entries, so reading a zip is
// just locating bytes: the End Of Central Directory, the central directory, and each
// entry's local header (whose extra field torch uses to pad data to 64 bytes).
// ZIP64 is handled (files > 4 GB). CRCs are not checked: that would read every byte.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace llama {

struct ZipEntry {
    std::string name;
    uint16_t method = 0;  // 0 = stored, 8 = deflated, ...
    uint64_t compressedSize = 0;
    uint64_t uncompressedSize = 0;
    uint64_t localHeaderOffset = 0;
    uint64_t dataOffset = 0;  // first byte of the entry's data in the archive
};

class ZipIndex {
public:
    // `source` names the archive in error messages. The bytes must outlive the index.
    ZipIndex(std::span<const std::byte> archive, std::string source);

    const std::vector<ZipEntry>& entries() const { return entries_; }
    // nullptr if there is no entry of that name.
    const ZipEntry* find(std::string_view name) const;
    // The entry's bytes inside the archive (no copy). Only stored entries can be read.
    std::span<const std::byte> data(const ZipEntry& entry) const;

private:
    std::span<const std::byte> archive_;
    std::string source_;
    std::vector<ZipEntry> entries_;
};

}  // namespace llama
