#include "formats/meta/zip_writer.h"

#include <array>

#include "formats/meta/zip_records.h"

namespace llama {

namespace {

using namespace zip;

constexpr uint16_t kFlags = 0x0808;      // bit 3: sizes and CRC after the data; bit 11: UTF-8 names
constexpr uint16_t kZip64Version = 45;   // "version needed" of an entry or archive with ZIP64 fields
constexpr uint16_t kMadeBy = 0x031e;     // Unix, spec 3.0: what torch's ZIP64 end record says
constexpr uint16_t kPaddingExtraId = 0x4246;  // "FB", torch's padding field
constexpr uint64_t kAlignment = 64;
constexpr uint64_t kMax32 = 0xffffffff;  // this value and above live in ZIP64 fields

// Fields that do not fit 32 bits are saturated, their values moved to the ZIP64 extra field.
bool needsZip64(uint64_t v) { return v >= kMax32; }

std::array<uint32_t, 256> crcTable() {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        t[i] = c;
    }
    return t;
}

}  // namespace

uint32_t crc32(std::span<const std::byte> data, uint32_t crc) {
    static const std::array<uint32_t, 256> table = crcTable();
    crc = ~crc;
    for (std::byte b : data) crc = table[(crc ^ uint8_t(b)) & 0xff] ^ (crc >> 8);
    return ~crc;
}

void ZipWriter::put(uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out_.put(char((value >> (8 * i)) & 0xff));
    written_ += uint64_t(bytes);
}

void ZipWriter::putBytes(std::span<const std::byte> data) {
    out_.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
    written_ += data.size();
}

void ZipWriter::add(std::string_view name, std::span<const std::byte> data) {
    const Entry entry{std::string(name), crc32(data), data.size(), written_};
    const bool big = needsZip64(entry.size);
    // The local header's extra field: ZIP64 sizes for a big entry (placeholders: with flag bit 3
    // the real ones follow the data), then "FB" padding up to the next 64-byte boundary.
    const uint64_t zip64Extra = big ? 4 + 16 : 0;
    const uint64_t unpadded = entry.offset + kLocalHeaderSize + name.size() + zip64Extra + 4;
    const uint64_t padding = (kAlignment - unpadded % kAlignment) % kAlignment;
    put(kLocalHeaderSig, 4);
    put(big ? kZip64Version : 0, 2);
    put(kFlags, 2);
    put(0, 2);  // method: stored
    put(0, 4);  // time and date
    put(0, 4);  // CRC-32: in the data descriptor
    put(big ? kMax32 : 0, 4);
    put(big ? kMax32 : 0, 4);
    put(name.size(), 2);
    put(zip64Extra + 4 + padding, 2);
    putBytes(std::as_bytes(std::span(name.data(), name.size())));
    if (big) {
        put(kZip64ExtraId, 2), put(16, 2);
        put(0, 8), put(0, 8);
    }
    put(kPaddingExtraId, 2), put(padding, 2);
    const std::string zs(padding, 'Z');
    putBytes(std::as_bytes(std::span(zs)));
    putBytes(data);
    put(kDataDescriptorSig, 4);
    put(entry.crc, 4);
    put(entry.size, big ? 8 : 4);  // compressed, then uncompressed: the same when stored
    put(entry.size, big ? 8 : 4);
    entries_.push_back(entry);
}

void ZipWriter::finish() {
    const uint64_t directoryOffset = written_;
    for (const Entry& e : entries_) {
        const bool bigSize = needsZip64(e.size), bigOffset = needsZip64(e.offset);
        const uint64_t extra = bigSize || bigOffset ? 4 + (bigSize ? 16 : 0) + (bigOffset ? 8 : 0) : 0;
        const uint16_t version = extra ? kZip64Version : 0;
        put(kCentralHeaderSig, 4);
        put(version, 2);  // made by
        put(version, 2);  // needed
        put(kFlags, 2);
        put(0, 2);  // method: stored
        put(0, 4);  // time and date
        put(e.crc, 4);
        put(bigSize ? kMax32 : e.size, 4);
        put(bigSize ? kMax32 : e.size, 4);
        put(e.name.size(), 2);
        put(extra, 2);
        put(0, 2);  // comment length
        put(0, 2);  // disk
        put(0, 2);  // internal attributes
        put(0, 4);  // external attributes
        put(bigOffset ? kMax32 : e.offset, 4);
        putBytes(std::as_bytes(std::span(e.name)));
        if (extra) {
            put(kZip64ExtraId, 2), put(extra - 4, 2);
            if (bigSize) put(e.size, 8), put(e.size, 8);  // uncompressed, then compressed
            if (bigOffset) put(e.offset, 8);
        }
    }
    const uint64_t directorySize = written_ - directoryOffset, zip64Eocd = written_, count = entries_.size();
    put(kZip64EocdSig, 4);
    put(kZip64EocdSize - 12, 8);  // the record's size after this field
    put(kMadeBy, 2);
    put(kZip64Version, 2);
    put(0, 4), put(0, 4);  // this disk, the directory's disk
    put(count, 8), put(count, 8);
    put(directorySize, 8);
    put(directoryOffset, 8);
    put(kZip64LocatorSig, 4);
    put(0, 4);  // the ZIP64 record's disk
    put(zip64Eocd, 8);
    put(1, 4);  // disks
    put(kEocdSig, 4);
    put(0, 2), put(0, 2);  // this disk, the directory's disk
    put(count >= 0xffff ? 0xffff : count, 2);
    put(count >= 0xffff ? 0xffff : count, 2);
    put(needsZip64(directorySize) ? kMax32 : directorySize, 4);
    put(needsZip64(directoryOffset) ? kMax32 : directoryOffset, 4);
    put(0, 2);  // comment length
}

}  // namespace llama
