#include "formats/gguf/gguf_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <stdexcept>
#include <unordered_set>

namespace llama {

namespace {

// ggml allows at most 4 dimensions; arrays nest only as deep as anyone writes them.
constexpr uint32_t kMaxDims = 4;
constexpr int kMaxArrayDepth = 8;
// A key or tensor name longer than this is not a real file's (ggml's limit for names is 64).
constexpr uint64_t kMaxNameLength = 1 << 16;
// Counts are checked against the bytes left, but a parsed value takes more memory than its
// bytes: these caps keep a hostile file from turning its size into many times that in memory.
// Real files are far below them (Llama 3: 128,256 tokens + 280,147 merges; 8B: 291 tensors).
constexpr uint64_t kMaxTensors = 1 << 20;
constexpr uint64_t kMaxArrayItems = 1 << 22;  // all metadata arrays together

// Reads little-endian fields front to back; every read is bounds-checked and every error
// says where it happened and what was being read.
class Cursor {
public:
    Cursor(const std::string& path, std::span<const std::byte> bytes) : path_(path), bytes_(bytes) {}

    [[noreturn]] void fail(uint64_t at, const std::string& field, const std::string& what) const {
        throw std::runtime_error(fmt::format("{}: GGUF offset {}: {}: {}", path_, at, field, what));
    }
    uint64_t pos() const { return pos_; }
    uint64_t remaining() const { return bytes_.size() - pos_; }

    void need(uint64_t n, const std::string& field) const {
        if (n > remaining())
            fail(pos_, field, fmt::format("needs {} bytes but the file ends after {} (truncated?)", n, remaining()));
    }
    template <class T> T read(const std::string& field) {
        need(sizeof(T), field);
        T v;
        std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
        pos_ += sizeof(T);
        return v;
    }
    std::string readString(const std::string& field, uint64_t maxLength = UINT64_MAX) {
        uint64_t at = pos_;
        uint64_t n = read<uint64_t>(field + " length");
        if (n > maxLength) fail(at, field, fmt::format("length {} exceeds the limit of {}", n, maxLength));
        if (n > remaining()) fail(at, field, fmt::format("string length {} runs past the end of the file ({} bytes left)", n, remaining()));
        std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), size_t(n));
        pos_ += n;
        return s;
    }
    // A count of items that each take at least minBytes: bounded by what is left, so a
    // hostile count cannot make us allocate more than the file's size.
    uint64_t readCount(const std::string& field, uint64_t minBytes) {
        uint64_t at = pos_;
        uint64_t n = read<uint64_t>(field);
        if (n > remaining() / minBytes)
            fail(at, field, fmt::format("count {} cannot fit in the {} bytes left in the file", n, remaining()));
        return n;
    }

private:
    const std::string& path_;
    std::span<const std::byte> bytes_;
    uint64_t pos_ = 0;
};

// The smallest encoding of a value of type t (an empty string or array still has its header).
uint64_t minValueBytes(GgufType t) {
    switch (t) {
        case GgufType::U8: case GgufType::I8: case GgufType::Bool: return 1;
        case GgufType::U16: case GgufType::I16: return 2;
        case GgufType::U32: case GgufType::I32: case GgufType::F32: return 4;
        case GgufType::U64: case GgufType::I64: case GgufType::F64: case GgufType::String: return 8;
        case GgufType::Array: return 12;
    }
    return 1;
}

GgufType readType(Cursor& c, const std::string& field) {
    uint64_t at = c.pos();
    uint32_t t = c.read<uint32_t>(field);
    if (t > uint32_t(GgufType::F64)) c.fail(at, field, fmt::format("unknown value type {}", t));
    return GgufType(t);
}

GgufValue readValue(Cursor& c, GgufType type, const std::string& field, int depth, uint64_t& arrayItems) {
    GgufValue v;
    v.type = type;
    auto integer = [&](int64_t x) {
        v.integer = x;
        v.uinteger = uint64_t(x);
    };
    switch (type) {
        case GgufType::U8: integer(c.read<uint8_t>(field)); break;
        case GgufType::I8: integer(c.read<int8_t>(field)); break;
        case GgufType::U16: integer(c.read<uint16_t>(field)); break;
        case GgufType::I16: integer(c.read<int16_t>(field)); break;
        case GgufType::U32: integer(c.read<uint32_t>(field)); break;
        case GgufType::I32: integer(c.read<int32_t>(field)); break;
        case GgufType::I64: integer(c.read<int64_t>(field)); break;
        case GgufType::U64:
            v.uinteger = c.read<uint64_t>(field);
            v.integer = int64_t(v.uinteger);
            break;
        case GgufType::F32: v.real = c.read<float>(field); break;
        case GgufType::F64: v.real = c.read<double>(field); break;
        case GgufType::Bool: {
            uint64_t at = c.pos();
            uint8_t b = c.read<uint8_t>(field);
            if (b > 1) c.fail(at, field, fmt::format("bool must be 0 or 1, got {}", b));
            integer(b);
            break;
        }
        case GgufType::String: v.text = c.readString(field); break;
        case GgufType::Array: {
            uint64_t at = c.pos();
            if (depth >= kMaxArrayDepth) c.fail(at, field, fmt::format("arrays nested deeper than {}", kMaxArrayDepth));
            v.elementType = readType(c, field + " element type");
            uint64_t n = c.readCount(field + " array length", minValueBytes(v.elementType));
            arrayItems += n;
            if (arrayItems > kMaxArrayItems)
                c.fail(at, field, fmt::format("more than {} array items in the metadata (length {})", kMaxArrayItems, n));
            v.items.reserve(size_t(n));
            for (uint64_t i = 0; i < n; ++i)
                v.items.push_back(readValue(c, v.elementType, fmt::format("{}[{}]", field, i), depth + 1, arrayItems));
            break;
        }
    }
    return v;
}

}  // namespace

std::string ggmlTypeName(uint32_t t) {
    static const char* names[] = {"F32", "F16", "Q4_0", "Q4_1", "Q4_2", "Q4_3", "Q5_0", "Q5_1", "Q8_0", "Q8_1",
                                  "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "Q8_K", "IQ2_XXS", "IQ2_XS", "IQ3_XXS",
                                  "IQ1_S", "IQ4_NL", "IQ3_S", "IQ2_S", "IQ4_XS", "I8", "I16", "I32", "I64", "F64",
                                  "IQ1_M", "BF16"};
    if (t < std::size(names)) return fmt::format("{} ({})", names[t], t);
    return fmt::format("unknown type {}", t);
}

DType dtypeOfGgml(uint32_t t, const std::string& context) {
    switch (GgmlType(t)) {
        case GgmlType::F32: return DType::F32;
        case GgmlType::F16: return DType::F16;
        case GgmlType::BF16: return DType::BF16;
        case GgmlType::Q8_0: return DType::Q8_0;
        case GgmlType::Q4_0: return DType::Q4_0;
        case GgmlType::Q4_K: return DType::Q4_K;
        case GgmlType::Q6_K: return DType::Q6_K;
    }
    throw std::runtime_error(fmt::format("{}: tensor type {} is not supported (supported: F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K)",
                                         context, ggmlTypeName(t)));
}

GgmlType ggmlOfDType(DType t) {
    switch (t) {
        case DType::F32: return GgmlType::F32;
        case DType::F16: return GgmlType::F16;
        case DType::BF16: return GgmlType::BF16;
        case DType::Q8_0: return GgmlType::Q8_0;
        case DType::Q4_0: return GgmlType::Q4_0;
        case DType::Q4_K: return GgmlType::Q4_K;
        case DType::Q6_K: return GgmlType::Q6_K;
        default: throw std::invalid_argument(std::string("GGUF has no tensor type for ") + dtypeName(t));
    }
}

GgufFile GgufFile::open(const std::string& path) {
    GgufFile g;
    g.file_ = std::make_shared<MappedFile>(path);
    Cursor c(path, g.file_->bytes());

    uint64_t at = c.pos();
    c.need(4, "magic");
    uint32_t magic = c.read<uint32_t>("magic");
    if (std::memcmp(&magic, "GGUF", 4) != 0) c.fail(at, "magic", "not a GGUF file (the first 4 bytes are not \"GGUF\")");
    at = c.pos();
    g.version_ = c.read<uint32_t>("version");
    if (g.version_ != 2 && g.version_ != 3)
        c.fail(at, "version", fmt::format("GGUF version {} is not supported (only 2 and 3)", g.version_));
    // Each tensor info takes at least 24 bytes, each metadata entry 13.
    at = c.pos();
    uint64_t tensorCount = c.readCount("tensor count", 24);
    if (tensorCount > kMaxTensors) c.fail(at, "tensor count", fmt::format("{} exceeds the limit of {}", tensorCount, kMaxTensors));
    uint64_t kvCount = c.readCount("metadata count", 13);

    uint64_t arrayItems = 0;
    std::unordered_set<std::string> keys;
    for (uint64_t i = 0; i < kvCount; ++i) {
        at = c.pos();
        std::string key = c.readString(fmt::format("metadata[{}] key", i), kMaxNameLength);
        // Which of two values a reader takes is up to the reader: refuse rather than guess.
        if (!keys.insert(key).second) c.fail(at, fmt::format("metadata[{}] key", i), fmt::format("'{}' appears twice", key));
        GgufType type = readType(c, "metadata '" + key + "' type");
        g.metadata_.emplace_back(key, readValue(c, type, "metadata '" + key + "'", 0, arrayItems));
    }
    if (const GgufValue* a = g.find("general.alignment")) {
        if (a->type != GgufType::U32 || a->integer == 0 || (a->integer & (a->integer - 1)))
            throw std::runtime_error(fmt::format("{}: general.alignment must be a uint32 power of two", path));
        g.alignment_ = uint64_t(a->integer);
    }

    g.tensors_.reserve(size_t(tensorCount));
    std::set<std::string> names;
    for (uint64_t i = 0; i < tensorCount; ++i) {
        GgufTensorInfo t;
        t.name = c.readString(fmt::format("tensor[{}] name", i), kMaxNameLength);
        std::string field = "tensor '" + t.name + "'";
        at = c.pos();
        uint32_t nDims = c.read<uint32_t>(field + " n_dims");
        if (nDims == 0 || nDims > kMaxDims) c.fail(at, field + " n_dims", fmt::format("{} dimensions (1 to {} allowed)", nDims, kMaxDims));
        t.shape.assign(nDims, 0);
        uint64_t numel = 1;
        for (uint32_t d = 0; d < nDims; ++d) {
            at = c.pos();
            uint64_t ne = c.read<uint64_t>(field + " ne");
            // Bounded so that products cannot overflow; the size check against the file follows.
            if (ne == 0 || ne > (uint64_t(1) << 40) || numel > (uint64_t(1) << 62) / ne)
                c.fail(at, field + " ne", fmt::format("dimension {} is {}", d, ne));
            numel *= ne;
            t.shape[nDims - 1 - d] = int64_t(ne);
        }
        at = c.pos();
        t.ggmlType = c.read<uint32_t>(field + " type");
        t.dtype = dtypeOfGgml(t.ggmlType, fmt::format("{}: GGUF offset {}: {}", path, at, field));
        if (t.shape.back() % dtypeBlockSize(t.dtype))
            c.fail(at, field, fmt::format("innermost dimension {} is not a multiple of {}'s block size {}", t.shape.back(),
                                          dtypeName(t.dtype), dtypeBlockSize(t.dtype)));
        at = c.pos();
        t.offset = c.read<uint64_t>(field + " offset");
        if (t.offset % g.alignment_) c.fail(at, field + " offset", fmt::format("{} is not a multiple of the alignment {}", t.offset, g.alignment_));
        if (!names.insert(t.name).second) throw std::runtime_error(fmt::format("{}: tensor '{}' appears twice", path, t.name));
        g.tensors_.push_back(std::move(t));
    }
    g.dataOffset_ = (c.pos() + g.alignment_ - 1) / g.alignment_ * g.alignment_;
    const uint64_t fileSize = g.file_->size();
    if (tensorCount && g.dataOffset_ > fileSize)
        throw std::runtime_error(fmt::format("{}: GGUF offset {}: data section starts past the end of the file ({} bytes)", path,
                                             g.dataOffset_, fileSize));
    // Every tensor's bytes (as its shape and type say) lie inside the file and overlap no other's.
    std::vector<std::pair<uint64_t, const GgufTensorInfo*>> byOffset;
    for (const auto& t : g.tensors_) {
        uint64_t bytes = dtypeBytes(t.dtype, shapeNumel(t.shape));
        if (t.offset > fileSize - g.dataOffset_ || bytes > fileSize - g.dataOffset_ - t.offset)
            throw std::runtime_error(fmt::format(
                "{}: tensor '{}' ({} {}, {} bytes) at data offset {} runs past the end of the file ({} bytes, data from offset {})",
                path, t.name, dtypeName(t.dtype), shapeToString(t.shape), bytes, t.offset, fileSize, g.dataOffset_));
        byOffset.emplace_back(t.offset, &t);
    }
    std::sort(byOffset.begin(), byOffset.end());
    for (size_t i = 1; i < byOffset.size(); ++i) {
        const GgufTensorInfo& prev = *byOffset[i - 1].second;
        uint64_t prevEnd = prev.offset + dtypeBytes(prev.dtype, shapeNumel(prev.shape));
        if (prevEnd > byOffset[i].first)
            throw std::runtime_error(fmt::format("{}: tensor '{}' ({} {}) ends at data offset {}, inside tensor '{}' at {}", path,
                                                 prev.name, dtypeName(prev.dtype), shapeToString(prev.shape), prevEnd,
                                                 byOffset[i].second->name, byOffset[i].first));
    }
    return g;
}

const GgufValue* GgufFile::find(const std::string& key) const {
    for (const auto& [k, v] : metadata_)
        if (k == key) return &v;
    return nullptr;
}

Tensor GgufFile::tensor(const GgufTensorInfo& info) const {
    return Tensor::view(info.shape, info.dtype, file_, file_->bytes().data() + dataOffset_ + info.offset);
}

}  // namespace llama
