#include "formats/meta/zip_index.h"

#include <stdexcept>

#include "formats/meta/zip_records.h"

namespace llama {

namespace {

using namespace zip;

// Bounds-checked little-endian reads; every error names the archive and the offset.
class Reader {
public:
    Reader(std::span<const std::byte> b, const std::string& source) : b_(b), source_(source) {}

    [[noreturn]] void fail(uint64_t offset, const std::string& what) const {
        throw std::runtime_error("zip '" + source_ + "' at offset " + std::to_string(offset) + ": " + what +
                                 " (archive is " + std::to_string(b_.size()) + " bytes)");
    }
    void need(uint64_t offset, uint64_t size, const std::string& what) const {
        if (offset > b_.size() || size > b_.size() - offset)
            fail(offset, "expected " + what + " of " + std::to_string(size) + " bytes, past the end of the archive");
    }
    uint64_t le(uint64_t offset, int bytes) const {
        if (offset > b_.size() || uint64_t(bytes) > b_.size() - offset)
            need(offset, bytes, std::to_string(bytes) + "-byte field");  // throws
        uint64_t v = 0;
        for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | uint8_t(b_[offset + i]);
        return v;
    }
    uint16_t u16(uint64_t o) const { return uint16_t(le(o, 2)); }
    uint32_t u32(uint64_t o) const { return uint32_t(le(o, 4)); }
    uint64_t u64(uint64_t o) const { return le(o, 8); }
    void expectSig(uint64_t offset, uint32_t sig, const std::string& what) const {
        if (u32(offset) != sig) fail(offset, "expected the signature of " + what);
    }
    std::string str(uint64_t offset, size_t n) const {
        need(offset, n, "a name");
        return {reinterpret_cast<const char*>(b_.data() + offset), n};
    }
    size_t size() const { return b_.size(); }

private:
    std::span<const std::byte> b_;
    const std::string& source_;
};

struct Directory {
    uint64_t count, size, offset;
};

// The EOCD record sits at the end, followed only by a comment of up to 64 KiB.
uint64_t findEocd(const Reader& r) {
    if (r.size() < kEocdSize) r.fail(0, "too small to be a zip archive (no End Of Central Directory)");
    uint64_t lowest = r.size() - kEocdSize > 0xffff ? r.size() - kEocdSize - 0xffff : 0;
    for (uint64_t o = r.size() - kEocdSize + 1; o-- > lowest;)
        if (r.u32(o) == kEocdSig && o + kEocdSize + r.u16(o + 20) == r.size()) return o;
    r.fail(r.size(), "no End Of Central Directory record at the end: not a zip archive, or truncated");
}

Directory readDirectory(const Reader& r) {
    uint64_t eocd = findEocd(r);
    if (r.u16(eocd + 4) != 0 || r.u16(eocd + 6) != 0) r.fail(eocd, "multi-disk archives are not supported");
    Directory d{r.u16(eocd + 10), r.u32(eocd + 12), r.u32(eocd + 16)};
    // Values that do not fit are saturated to all-ones and the real ones are in the
    // ZIP64 EOCD record, found through the locator just before the EOCD.
    if (d.count == 0xffff || d.size == 0xffffffff || d.offset == 0xffffffff) {
        if (eocd < kZip64LocatorSize) r.fail(eocd, "expected a ZIP64 locator before the End Of Central Directory");
        uint64_t loc = eocd - kZip64LocatorSize;
        r.expectSig(loc, kZip64LocatorSig, "the ZIP64 End Of Central Directory locator");
        uint64_t rec = r.u64(loc + 8);
        r.need(rec, kZip64EocdSize, "the ZIP64 End Of Central Directory record");
        r.expectSig(rec, kZip64EocdSig, "the ZIP64 End Of Central Directory record");
        d = {r.u64(rec + 32), r.u64(rec + 40), r.u64(rec + 48)};
    }
    r.need(d.offset, d.size, "the central directory");
    // Each entry takes at least 46 bytes: a bound that keeps a hostile count from reserving memory.
    if (d.count > d.size / kCentralHeaderSize)
        r.fail(d.offset, std::to_string(d.count) + " entries cannot fit in a central directory of " +
                             std::to_string(d.size) + " bytes");
    return d;
}

// Saturated sizes/offsets are replaced, in this order, by 8-byte values of the ZIP64 extra field.
void applyZip64Extra(const Reader& r, uint64_t extra, uint64_t extraLen, ZipEntry& e) {
    for (uint64_t p = extra; p + 4 <= extra + extraLen;) {
        uint16_t id = r.u16(p), len = r.u16(p + 2);
        if (p + 4 + len > extra + extraLen) r.fail(p, "extra field of entry '" + e.name + "' overruns its header");
        if (id == kZip64ExtraId) {
            uint64_t q = p + 4, end = q + len;
            for (uint64_t* v : {&e.uncompressedSize, &e.compressedSize, &e.localHeaderOffset}) {
                if (*v != 0xffffffff) continue;
                if (q + 8 > end) r.fail(q, "ZIP64 extra field of entry '" + e.name + "' is too short");
                *v = r.u64(q);
                q += 8;
            }
            return;
        }
        p += 4 + len;
    }
}

}  // namespace

ZipIndex::ZipIndex(std::span<const std::byte> archive, std::string source)
    : archive_(archive), source_(std::move(source)) {
    Reader r(archive_, source_);
    Directory dir = readDirectory(r);
    entries_.reserve(dir.count);
    uint64_t p = dir.offset;
    for (uint64_t i = 0; i < dir.count; ++i) {
        r.need(p, kCentralHeaderSize, "a central directory header");
        r.expectSig(p, kCentralHeaderSig, "a central directory header");
        ZipEntry e;
        uint16_t flags = r.u16(p + 8);
        e.method = r.u16(p + 10);
        e.compressedSize = r.u32(p + 20);
        e.uncompressedSize = r.u32(p + 24);
        uint16_t nameLen = r.u16(p + 28), extraLen = r.u16(p + 30), commentLen = r.u16(p + 32);
        e.localHeaderOffset = r.u32(p + 42);
        e.name = r.str(p + kCentralHeaderSize, nameLen);
        r.need(p + kCentralHeaderSize + nameLen, extraLen, "the extra field of entry '" + e.name + "'");
        applyZip64Extra(r, p + kCentralHeaderSize + nameLen, extraLen, e);
        if (flags & 1) r.fail(p, "entry '" + e.name + "' is encrypted");

        // The data follows the LOCAL header, whose extra field may differ from the central one.
        uint64_t lh = e.localHeaderOffset;
        r.need(lh, kLocalHeaderSize, "the local header of entry '" + e.name + "'");
        r.expectSig(lh, kLocalHeaderSig, "the local header of entry '" + e.name + "'");
        e.dataOffset = lh + kLocalHeaderSize + r.u16(lh + 26) + r.u16(lh + 28);
        r.need(e.dataOffset, e.compressedSize, "the data of entry '" + e.name + "'");

        entries_.push_back(std::move(e));
        p += kCentralHeaderSize + nameLen + extraLen + commentLen;
    }
}

const ZipEntry* ZipIndex::find(std::string_view name) const {
    for (const ZipEntry& e : entries_)
        if (e.name == name) return &e;
    return nullptr;
}

std::span<const std::byte> ZipIndex::data(const ZipEntry& e) const {
    if (e.method != 0)
        throw std::runtime_error("zip '" + source_ + "': entry '" + e.name + "' is compressed (method " +
                                 std::to_string(e.method) + "); only stored (uncompressed) entries can be read");
    if (e.compressedSize != e.uncompressedSize)
        throw std::runtime_error("zip '" + source_ + "': stored entry '" + e.name + "' has compressed size " +
                                 std::to_string(e.compressedSize) + " but uncompressed size " +
                                 std::to_string(e.uncompressedSize));
    return archive_.subspan(e.dataOffset, e.compressedSize);
}

}  // namespace llama
