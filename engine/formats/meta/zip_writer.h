#pragma once
// Writes a zip archive of stored (uncompressed) entries laid out as torch.save's writer lays
// them out (PyTorch 1.13), so that torch.load and our own ZipIndex read it:
//   - each entry's data starts at a multiple of 64 bytes of the archive, the local header's
//     extra field padded to get there (an "FB" field of 'Z's), so that a reader can map a
//     tensor in place;
//   - general-purpose flags 0x0808 (UTF-8 names; sizes and CRC-32 in a data descriptor after
//     the data), times and dates 0, so the same entries give the same bytes;
//   - a ZIP64 end-of-central-directory record and locator always, before the classic record;
//     entries and offsets of 4 GB or more get ZIP64 extra fields, as the spec says.
// Entries are streamed: nothing but the central directory is held in memory.
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace llama {

// CRC-32 (IEEE 802.3, as zip uses) of `data`, continuing from `crc` (0 to start).
// Hand-written: no library the engine links offers it, and it is a table and a loop.
uint32_t crc32(std::span<const std::byte> data, uint32_t crc = 0);

class ZipWriter {
public:
    // Appends to `out`, which must be at the start of the archive; its write errors are the
    // caller's to check (AtomicOutputFile::commit does).
    explicit ZipWriter(std::ostream& out) : out_(out) {}

    void add(std::string_view name, std::span<const std::byte> data);
    // The central directory and the end records; call once, after the last add().
    void finish();

private:
    struct Entry {
        std::string name;
        uint32_t crc;
        uint64_t size, offset;
    };
    void put(uint64_t value, int bytes);
    void putBytes(std::span<const std::byte> data);

    std::ostream& out_;
    uint64_t written_ = 0;
    std::vector<Entry> entries_;
};

}  // namespace llama
