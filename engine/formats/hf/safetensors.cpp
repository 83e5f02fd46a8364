#include "formats/hf/safetensors.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace llama {

namespace {

struct Entry {
    std::string name;
    std::string dtype;
    Shape shape;
    uint64_t begin = 0, end = 0;
};

size_t dtypeBytes(const std::string& path, const Entry& e) {
    if (e.dtype == "BF16" || e.dtype == "F16" || e.dtype == "I16" || e.dtype == "U16") return 2;
    if (e.dtype == "F32" || e.dtype == "I32" || e.dtype == "U32") return 4;
    if (e.dtype == "F64" || e.dtype == "I64" || e.dtype == "U64") return 8;
    if (e.dtype == "BOOL" || e.dtype == "U8" || e.dtype == "I8" || e.dtype == "F8_E4M3" || e.dtype == "F8_E5M2") return 1;
    throw std::runtime_error(fmt::format("{}: tensor '{}' has unknown dtype '{}'", path, e.name, e.dtype));
}

Entry parseEntry(const std::string& path, const std::string& name, const nlohmann::json& v) {
    auto fail = [&](const std::string& what) {
        throw std::runtime_error(fmt::format("{}: tensor '{}': {}", path, name, what));
    };
    if (!v.is_object()) fail("header entry is not a JSON object");
    Entry e;
    e.name = name;
    if (!v.contains("dtype") || !v["dtype"].is_string()) fail("missing or non-string 'dtype'");
    e.dtype = v["dtype"].get<std::string>();
    if (!v.contains("shape") || !v["shape"].is_array()) fail("missing or non-array 'shape'");
    for (const auto& d : v["shape"]) {
        if (!d.is_number_unsigned()) fail("'shape' must hold non-negative integers");
        const uint64_t n = d.get<uint64_t>();
        if (n > uint64_t(std::numeric_limits<int64_t>::max())) fail("a dimension is too large");
        e.shape.push_back(int64_t(n));
    }
    const auto& off = v.contains("data_offsets") ? v["data_offsets"] : nlohmann::json();
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
        fail("'data_offsets' must be [begin, end] with non-negative integers");
    e.begin = off[0].get<uint64_t>();
    e.end = off[1].get<uint64_t>();
    if (e.begin > e.end) fail(fmt::format("data_offsets [{}, {}] end before they begin", e.begin, e.end));
    return e;
}

}  // namespace

SafetensorsFile SafetensorsFile::load(const std::string& path) {
    SafetensorsFile f;
    f.file_ = std::make_shared<const MappedFile>(path);
    const auto bytes = f.file_->bytes();
    if (bytes.size() < 8) throw std::runtime_error(path + ": too short for a safetensors file (no 8-byte header length)");
    uint64_t headerLen = 0;
    for (int i = 7; i >= 0; --i) headerLen = (headerLen << 8) | uint64_t(bytes[i]);
    if (headerLen > kMaxSafetensorsHeader)
        throw std::runtime_error(fmt::format("{}: header length {} exceeds the limit of {} bytes", path, headerLen, kMaxSafetensorsHeader));
    if (headerLen > bytes.size() - 8)
        throw std::runtime_error(fmt::format("{}: header length {} runs past the end of the file ({} bytes)", path, headerLen, bytes.size()));
    const char* headerStart = reinterpret_cast<const char*>(bytes.data()) + 8;
    nlohmann::json header;
    try {
        header = nlohmann::json::parse(headerStart, headerStart + headerLen);
    } catch (const nlohmann::json::parse_error& e) {
        throw std::runtime_error(fmt::format("{}: header is not valid JSON: {}", path, e.what()));
    }
    if (!header.is_object()) throw std::runtime_error(path + ": header is not a JSON object");

    const std::byte* data = bytes.data() + 8 + headerLen;
    const uint64_t dataSize = bytes.size() - 8 - headerLen;
    std::vector<Entry> entries;
    for (const auto& [name, v] : header.items()) {
        if (name == "__metadata__") continue;  // free-form strings (e.g. {"format": "pt"})
        Entry e = parseEntry(path, name, v);
        const size_t elemBytes = dtypeBytes(path, e);
        uint64_t expected = elemBytes;
        for (int64_t d : e.shape)
            if (d != 0 && expected > std::numeric_limits<uint64_t>::max() / uint64_t(d))
                throw std::runtime_error(fmt::format("{}: tensor '{}': shape({}) overflows a byte count", path, name, shapeToString(e.shape)));
            else expected *= uint64_t(d);
        if (e.end - e.begin != expected)
            throw std::runtime_error(fmt::format("{}: tensor '{}': {} shape({}) needs {} bytes, but data_offsets [{}, {}] hold {}", path,
                                                 name, e.dtype, shapeToString(e.shape), expected, e.begin, e.end, e.end - e.begin));
        if (e.end > dataSize)
            throw std::runtime_error(fmt::format("{}: tensor '{}': data_offsets [{}, {}] lie outside the data section ({} bytes)", path,
                                                 name, e.begin, e.end, dataSize));
        if (e.dtype == "F16")
            throw std::runtime_error(fmt::format("{}: tensor '{}' is float16, which this program does not read: convert the model to "
                                                 "bfloat16 (torch_dtype \"bfloat16\")", path, name));
        if (e.dtype != "BF16" && e.dtype != "F32")
            throw std::runtime_error(fmt::format("{}: tensor '{}' has dtype {}; only BF16 and F32 weights are supported", path, name, e.dtype));
        if (reinterpret_cast<uintptr_t>(data + e.begin) % elemBytes)
            throw std::runtime_error(fmt::format("{}: tensor '{}' is not aligned to its {}-byte elements in the file", path, name, elemBytes));
        entries.push_back(std::move(e));
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
    // Sorted by start, two non-empty ranges overlap exactly when one starts before the previous ends.
    const Entry* last = nullptr;
    for (const Entry& e : entries) {
        if (e.begin == e.end) continue;
        if (last && e.begin < last->end)
            throw std::runtime_error(fmt::format("{}: tensors '{}' [{}, {}] and '{}' [{}, {}] overlap", path, last->name, last->begin,
                                                 last->end, e.name, e.begin, e.end));
        last = &e;
    }
    for (const Entry& e : entries) {
        const DType dt = e.dtype == "BF16" ? DType::BF16 : DType::F32;
        f.tensors_.push_back({e.name, Tensor::view(e.shape, dt, f.file_, data + e.begin)});
    }
    return f;
}

}  // namespace llama
