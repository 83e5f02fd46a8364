#include "formats/gguf/gguf_writer.h"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

#include "io/atomic_output.h"
#include "formats/gguf/gguf_file.h"

namespace llama {

namespace {

constexpr uint64_t kAlignment = GgufFile::kDefaultAlignment;

class Out {
public:
    template <class T> void put(T v) {
        const auto* p = reinterpret_cast<const char*>(&v);
        buf_.insert(buf_.end(), p, p + sizeof(T));
    }
    void putString(const std::string& s) {
        put<uint64_t>(s.size());
        buf_.insert(buf_.end(), s.begin(), s.end());
    }
    void putValue(const GgufValue& v) {
        switch (v.type) {
            case GgufType::U8: put<uint8_t>(uint8_t(v.integer)); break;
            case GgufType::I8: put<int8_t>(int8_t(v.integer)); break;
            case GgufType::U16: put<uint16_t>(uint16_t(v.integer)); break;
            case GgufType::I16: put<int16_t>(int16_t(v.integer)); break;
            case GgufType::U32: put<uint32_t>(uint32_t(v.integer)); break;
            case GgufType::I32: put<int32_t>(int32_t(v.integer)); break;
            case GgufType::U64: put<uint64_t>(v.uinteger); break;
            case GgufType::I64: put<int64_t>(v.integer); break;
            case GgufType::F32: put<float>(float(v.real)); break;
            case GgufType::F64: put<double>(v.real); break;
            case GgufType::Bool: put<uint8_t>(v.integer ? 1 : 0); break;
            case GgufType::String: putString(v.text); break;
            case GgufType::Array:
                put<uint32_t>(uint32_t(v.elementType));
                put<uint64_t>(v.items.size());
                for (const auto& item : v.items) putValue(item);
                break;
        }
    }
    void pad() { buf_.resize((buf_.size() + kAlignment - 1) / kAlignment * kAlignment, 0); }
    const std::vector<char>& bytes() const { return buf_; }

private:
    std::vector<char> buf_;
};

}  // namespace

void GgufWriter::addTensor(std::string name, Shape shape, DType dtype, std::function<std::vector<uint8_t>()> encode) {
    tensors_.push_back({std::move(name), std::move(shape), dtype, std::move(encode)});
}

void GgufWriter::write(const std::string& path) const {
    Out head;
    head.put<uint32_t>(0x46554747);  // "GGUF" little-endian
    head.put<uint32_t>(3);
    head.put<uint64_t>(tensors_.size());
    head.put<uint64_t>(metadata_.size());
    for (const auto& [key, value] : metadata_) {
        head.putString(key);
        head.put<uint32_t>(uint32_t(value.type));
        head.putValue(value);
    }
    uint64_t offset = 0;
    for (const auto& t : tensors_) {
        head.putString(t.name);
        head.put<uint32_t>(uint32_t(t.shape.size()));
        for (auto it = t.shape.rbegin(); it != t.shape.rend(); ++it) head.put<uint64_t>(uint64_t(*it));
        head.put<uint32_t>(uint32_t(ggmlOfDType(t.dtype)));
        head.put<uint64_t>(offset);
        offset += (dtypeBytes(t.dtype, shapeNumel(t.shape)) + kAlignment - 1) / kAlignment * kAlignment;
    }
    head.pad();

    AtomicOutputFile file(path);
    std::ofstream& out = file.stream();
    out.write(head.bytes().data(), std::streamsize(head.bytes().size()));
    static const char zeros[kAlignment] = {};
    for (const auto& t : tensors_) {
        std::vector<uint8_t> bytes = t.encode();
        if (bytes.size() != dtypeBytes(t.dtype, shapeNumel(t.shape)))
            throw std::logic_error(fmt::format("GGUF tensor '{}': {} bytes for {} {}", t.name, bytes.size(), dtypeName(t.dtype),
                                               shapeToString(t.shape)));
        out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
        out.write(zeros, std::streamsize((kAlignment - bytes.size() % kAlignment) % kAlignment));
    }
    file.commit();
}

}  // namespace llama
